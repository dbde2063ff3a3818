#include "shared/fedapi/node_address.hpp"

#include "shared/fedapi/group.hpp"
#include "shared/net/net_types.hpp"

namespace fed::fedapi {

using nlohmann::json;

std::optional<std::string> node_ipv4(const json& node, std::string_view type) {
  const json status = node.value("status", json::object());
  for (const auto& a : status.value("addresses", json::array())) {
    if (a.value("type", "") != type) continue;
    const std::string ip = a.value("address", "");
    if (net::Ipv4::parse(ip)) return ip;
  }
  return std::nullopt;
}

Result<std::string> gateway_address(const json& node) {
  const std::string name = node["metadata"].value("name", "");
  const json annotations = node["metadata"].value("annotations", json::object());
  const std::string annotated = annotations.value(std::string(kGatewayAddressAnnotation), "");
  if (!annotated.empty()) {
    if (!net::Ipv4::parse(annotated)) {
      return fail(ErrorCode::Invalid, "Node " + name + " annotation " +
                                          std::string(kGatewayAddressAnnotation) + ": \"" +
                                          annotated + "\" is not an IPv4 address");
    }
    return annotated;
  }
  for (const char* type : {"ExternalIP", "InternalIP"}) {
    if (auto ip = node_ipv4(node, type)) return *ip;
  }
  return fail(ErrorCode::Invalid, "Node " + name +
                                      " has no IPv4 ExternalIP or InternalIP: set the " +
                                      std::string(kGatewayAddressAnnotation) + " annotation");
}

}  // namespace fed::fedapi

#include "shared/fedapi/cluster_info.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

// data[key] as a string; Invalid naming the ConfigMap and key when absent or empty.
Result<std::string> required(const json& cm, std::string_view key) {
  const json& data = cm.contains("data") ? cm["data"] : json::object();
  auto it = data.find(std::string(key));
  if (it == data.end() || !it->is_string() || it->get<std::string>().empty()) {
    return fail(ErrorCode::Invalid, "ConfigMap " + std::string(kNamespace) + "/" +
                                        cm["metadata"].value("name", "?") + ": data." +
                                        std::string(key) + " is missing");
  }
  return it->get<std::string>();
}

Result<net::Cidr> cidr(const json& cm, std::string_view key) {
  FED_ASSIGN_OR_RETURN(auto text, required(cm, key));
  auto c = net::Cidr::parse(text);
  if (!c) {
    return fail(ErrorCode::Invalid, "ConfigMap " + std::string(kNamespace) + "/" +
                                        cm["metadata"].value("name", "?") + ": data." +
                                        std::string(key) + ": " + c.error().message());
  }
  return *c;
}

}  // namespace

kube::ResourceRef configmap_ref(std::string_view name) {
  return kube::ResourceRef{
      {"", "v1", "configmaps"}, std::string(kNamespace), std::string(name), ""};
}

Result<ClusterInfo> parse_cluster_info(const json& cm) {
  ClusterInfo info;
  FED_ASSIGN_OR_RETURN(info.cluster_id, required(cm, "clusterID"));
  FED_ASSIGN_OR_RETURN(auto role, required(cm, "role"));
  if (role == "host") {
    info.role = ClusterRole::Host;
  } else if (role == "member") {
    info.role = ClusterRole::Member;
  } else {
    return fail(ErrorCode::Invalid, "ConfigMap " + std::string(kNamespace) +
                                        "/federation: data.role must be host or member, not \"" +
                                        role + "\"");
  }
  FED_ASSIGN_OR_RETURN(info.pod_cidr, cidr(cm, "podCIDR"));
  FED_ASSIGN_OR_RETURN(info.service_cidr, cidr(cm, "serviceCIDR"));
  const json& data = cm.value("data", json::object());
  info.federation_id = data.value("federationID", "");
  if (info.role == ClusterRole::Member && info.federation_id.empty()) {
    return fail(ErrorCode::Invalid, "ConfigMap " + std::string(kNamespace) +
                                        "/federation: data.federationID is missing on a member");
  }
  return info;
}

Result<GatewayInfo> parse_gateway_info(const json& cm) {
  GatewayInfo gw;
  FED_ASSIGN_OR_RETURN(gw.node, required(cm, "node"));
  FED_ASSIGN_OR_RETURN(gw.endpoint, required(cm, "endpoint"));
  FED_ASSIGN_OR_RETURN(gw.public_key, required(cm, "publicKey"));
  return gw;
}

Result<ClusterInfo> read_cluster_info(kube::DynamicClient& client) {
  auto cm = client.get(configmap_ref(kFederationConfigMap));
  if (!cm) {
    if (cm.error().is_not_found()) {
      return fail(ErrorCode::NotFound,
                  "ConfigMap " + std::string(kNamespace) +
                      "/federation not found: the cluster was never initialised (kubectl fed "
                      "init) or joined (kubectl fed join)");
    }
    return cm.error().to_error();
  }
  return parse_cluster_info(*cm);
}

Result<std::optional<GatewayInfo>> read_gateway_info(kube::DynamicClient& client) {
  auto cm = client.get(configmap_ref(kGatewayConfigMap));
  if (!cm) {
    if (cm.error().is_not_found()) return std::optional<GatewayInfo>{};
    return cm.error().to_error();
  }
  FED_ASSIGN_OR_RETURN(auto gw, parse_gateway_info(*cm));
  return std::optional<GatewayInfo>(std::move(gw));
}

}  // namespace fed::federation

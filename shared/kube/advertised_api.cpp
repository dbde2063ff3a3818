#include "shared/kube/advertised_api.hpp"

namespace fed::kube {

using nlohmann::json;

std::string ApiAddress::host_port() const {
  const bool v6 = ip.find(':') != std::string::npos;
  return (v6 ? "[" + ip + "]" : ip) + ":" + std::to_string(port);
}

std::string ApiAddress::url() const {
  return "https://" + host_port();
}

Result<ApiAddress> advertised_api_address_of(const json& slice) {
  ApiAddress out;
  const json ports = slice.value("ports", json::array());
  if (!ports.empty()) out.port = ports[0].value("port", 443);
  for (const auto& p : ports) {
    if (p.value("name", "") == "https") out.port = p.value("port", out.port);
  }
  for (const auto& endpoint : slice.value("endpoints", json::array())) {
    // The API server's reconciler lists only live servers; "ready" absent means ready.
    const bool ready = endpoint.value("conditions", json::object()).value("ready", true);
    const json addresses = endpoint.value("addresses", json::array());
    if (!ready || addresses.empty() || !addresses[0].is_string()) continue;
    out.ip = addresses[0].get<std::string>();
    return out;
  }
  return fail(ErrorCode::NotFound,
              "EndpointSlice default/kubernetes lists no ready address of the API server");
}

Result<ApiAddress> advertised_api_address(DynamicClient& client) {
  const ResourceRef ref{{"discovery.k8s.io", "v1", "endpointslices"}, "default", "kubernetes", ""};
  auto slice = client.get(ref);
  if (!slice) {
    return fail(slice.error().code(),
                "reading EndpointSlice default/kubernetes: " + slice.error().to_error().message());
  }
  return advertised_api_address_of(*slice);
}

}  // namespace fed::kube

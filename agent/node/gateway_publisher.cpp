#include "agent/node/gateway_publisher.hpp"

#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::federation {

using nlohmann::json;

Status publish_gateway(kube::DynamicClient& client, const std::string& node,
                       const std::string& endpoint, const std::string& public_key) {
  json cm{{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", std::string(kGatewayConfigMap)},
            {"namespace", std::string(kNamespace)},
            {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
          {"data", {{"node", node}, {"endpoint", endpoint}, {"publicKey", public_key}}}};
  auto r =
      client.apply(configmap_ref(kGatewayConfigMap), cm, kube::ApplyOptions{"fed-agent", true});
  if (!r)
    return fail(r.error().code(), "publishing the gateway: " + r.error().to_error().message());
  return ok();
}

Status report_tunnel(kube::DynamicClient& client, const std::string& peer,
                     const fedapi::TunnelStatus& tunnel) {
  json body{{"status", {{"tunnel", tunnel}}}};
  if (tunnel.message.empty()) body["status"]["tunnel"]["message"] = nullptr;  // clear the old one
  auto r =
      client.patch_status(fedapi::ref(fedapi::kPeering, peer), kube::PatchType::Merge, body.dump());
  if (!r && !r.error().is_not_found()) {
    return fail(r.error().code(),
                "Peering " + peer + " tunnel status: " + r.error().to_error().message());
  }
  return ok();
}

}  // namespace fed::federation

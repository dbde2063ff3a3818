#pragma once
// What the gateway's node agent tells its own cluster (docs/JOIN.md): the gateway ConfigMap
// (node, underlay endpoint, WireGuard public key — never the private key), from which the
// manager fills the peers' Peerings, and the tunnel state in each Peering's status.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/node_address.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

using fedapi::kGatewayAddressAnnotation;

using fedapi::gateway_address;

// Writes the gateway ConfigMap (server-side apply, field manager "fed-agent").
Status publish_gateway(kube::DynamicClient& client, const std::string& node,
                       const std::string& endpoint, const std::string& public_key);

// Sets status.tunnel of the Peering `peer` (a merge patch of that field only: the manager owns
// the rest of the status). NotFound is not an error: the peering was just removed.
Status report_tunnel(kube::DynamicClient& client, const std::string& peer,
                     const fedapi::TunnelStatus& tunnel);

// What the gateway tunnel's pass writes to its own cluster: an interface so the pass is tested
// without an API server.
class GatewayApi {
 public:
  virtual ~GatewayApi() = default;
  // Writes the gateway ConfigMap.
  virtual Status publish(const GatewayInfo& gateway) = 0;
  // Sets status.tunnel of the Peering named `peering`.
  virtual Status report(const std::string& peering, const fedapi::TunnelStatus& tunnel) = 0;
};

// GatewayApi over the cluster's API server (publish_gateway, report_tunnel).
class KubeGatewayApi final : public GatewayApi {
 public:
  explicit KubeGatewayApi(kube::DynamicClient& client) : client_(client) {}
  Status publish(const GatewayInfo& gateway) override {
    return publish_gateway(client_, gateway.node, gateway.endpoint, gateway.public_key);
  }
  Status report(const std::string& peering, const fedapi::TunnelStatus& tunnel) override {
    return report_tunnel(client_, peering, tunnel);
  }

 private:
  kube::DynamicClient& client_;
};

}  // namespace fed::federation

#pragma once
// The node agent's desired datapath state from the API (docs/JOIN.md): this cluster's
// federation ConfigMap and IpamState, its Nodes (the gateway is the one labelled
// kubectl-fed.io/gateway=true), the Peerings the manager wrote and their NatMappings. Pure:
// the informer-fed source (node role) calls it on every change.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/node/fabric/node_state.hpp"
#include "agent/node/nat_mapping_entries.hpp"
#include "agent/node/tunnel/vxlan_tunnel.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/kube/object_store.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

using fedapi::kGatewayLabel;
inline constexpr std::string_view kTunnelInterface = "fed.wg";

struct NodeStateInputs {
  ClusterInfo self;
  std::string node_name;                   // the node this agent runs on
  std::optional<net::Cidr> external_cidr;  // IpamState spec.externalCIDR, once the manager ran
  std::vector<nlohmann::json> nodes;       // Node objects
  std::vector<nlohmann::json> peerings;    // Peering objects of this cluster
  // NatMappings of this cluster, parsed (NatMappingParseCache keeps them across passes).
  std::vector<NatMappingEntriesPtr> nat_mappings;
  std::string tunnel_interface = std::string(kTunnelInterface);  // Peerings of backend wireguard
  std::string vxlan_tunnel_interface = std::string(tunnel::kVxlanTunnelInterface);  // vxlan
  // The gateway ConfigMap as it is published now (none, or unreadable: publish again).
  std::optional<GatewayInfo> published_gateway;
};

// The gateway node's name: the labelled node (the first by name if several), or "" when none.
std::string gateway_node(const std::vector<nlohmann::json>& nodes);

// Why `peering` cannot carry traffic yet ("the peer's gateway is not up"), or "" when it can.
std::string peering_pending_reason(const nlohmann::json& peering);

// A Peering is installed once its networks are exchanged (NetworkReady) and the peer's
// gateway is known (endpoint, key and both tunnel addresses); the others are left out, so routes
// never point into a tunnel that cannot carry them. Invalid when an object is malformed.
Result<fabric::NodeNetworkState> build_node_state(const NodeStateInputs& in);

// The peers build_node_state left out, with the reason, for the agent's status and logs.
std::vector<std::string> pending_peerings(const NodeStateInputs& in);

}  // namespace fed::federation

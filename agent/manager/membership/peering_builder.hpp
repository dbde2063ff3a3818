#pragma once
// The Peering object one cluster holds for one peer (docs/JOIN.md step 3), built from that
// cluster's IPAM and both gateways' publications. Pure: the membership controller applies it.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/manager/ipam/ipam_types.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/peering.hpp"

namespace fed::federation {

// One side of a peering, in that side's view.
struct PeeringSide {
  std::string local_id;
  std::string peer_id;
  fabric::ipam::LocalNetworks local;
  fabric::ipam::ClusterState peer;  // the local IPAM's entry for the peer
  std::optional<GatewayInfo> local_gateway;
  std::optional<GatewayInfo> peer_gateway;
  std::string local_tunnel_address;
  std::string peer_tunnel_address;
  fedapi::TunnelBackend backend = fedapi::TunnelBackend::WireGuard;
};

// The full object for server-side apply: metadata (name = peer id, labels) and spec.
nlohmann::json peering_object(const PeeringSide& side);

// The status fields the manager owns: networks, gateway node and the NetworkReady condition
// (conditions and tunnel state from the node agent are merged by the caller).
fedapi::PeeringStatus peering_network_status(const PeeringSide& side);

// True when both halves of the network exchange are known on this side.
bool networks_complete(const PeeringSide& side);

}  // namespace fed::federation

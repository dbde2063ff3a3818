#pragma once
// Peering: one per peer cluster, in each cluster of the pair, written by the manager and read by
// the node agents. The spec is the network exchange (what the peer announced), the status the
// merged per-peer view (how each side sees the other's networks) and the tunnel's state.
// Network fields hold a CIDR, or "None" where the spec allows "not remapped"; "" is "unknown".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/condition.hpp"

namespace fed::fedapi {

enum class TunnelBackend { WireGuard, Vxlan };
// Ordered by how far along a tunnel is (a pair reports the side further behind). Lost: the
// handshake is recent but the peer gateway no longer answers over the tunnel (its node, agent
// or WAN link is down; agent/node/tunnel/probe_history.hpp).
enum class TunnelState { Pending, Connecting, Lost, Connected, Error };

// "wireguard" / "vxlan".
std::string_view to_string(TunnelBackend backend);
// The backend named `text`; nullopt for another name.
std::optional<TunnelBackend> tunnel_backend_named(std::string_view text);
// The backend at `key` of `j` (absent or "" reads as WireGuard); throws FieldError for another
// name. For from_json functions, called through decode().
TunnelBackend read_tunnel_backend(const nlohmann::json& j, std::string_view key);
// "Pending" / "Connecting" / "Connected" / "Error".
std::string_view to_string(TunnelState state);

struct PeeringSpec {
  std::string local_cluster_id;    // this cluster
  std::string peer_cluster_id;     // the other one
  std::string peer_pod_cidr;       // the peer's PodCIDR as it announced it
  std::string peer_external_cidr;  // the peer's ExternalCIDR as it announced it
  TunnelBackend backend = TunnelBackend::WireGuard;
  // Known once the peer's gateway is up; the tunnel stays Pending until then.
  std::string gateway_endpoint;  // the peer gateway's underlay "ip:port"
  std::string public_key;        // the peer gateway's WireGuard public key (base64); vxlan: ""
  // Addresses on the tunnel interfaces (169.254.64.0/18, allocated by the manager): the
  // datapath routes the peer's ranges via the peer's one.
  std::string local_tunnel_address;
  std::string peer_tunnel_address;

  friend bool operator==(const PeeringSpec&, const PeeringSpec&) = default;
};

struct TunnelStatus {
  TunnelState state = TunnelState::Pending;
  std::string message;  // why it is not Connected

  friend bool operator==(const TunnelStatus&, const TunnelStatus&) = default;
};

struct PeeringStatus {
  std::string local_pod_cidr;                // our PodCIDR
  std::string local_external_cidr;           // our ExternalCIDR
  std::string remote_pod_cidr;               // the peer's pods as used here: our remap, or "None"
  std::string remote_external_cidr;          // the peer's ExternalCIDR as used here, or "None"
  std::string local_remapped_pod_cidr;       // our PodCIDR as the peer sees it, or "None"
  std::string local_remapped_external_cidr;  // our ExternalCIDR as the peer sees it, or "None"
  std::string gateway_node;                  // the local node that terminates the tunnel
  TunnelStatus tunnel;
  std::vector<Condition> conditions;  // NetworkReady, TunnelReady, Ready
  std::int64_t observed_generation = 0;

  friend bool operator==(const PeeringStatus&, const PeeringStatus&) = default;
};

void to_json(nlohmann::json& j, const PeeringSpec& spec);
void from_json(const nlohmann::json& j, PeeringSpec& spec);  // throws; use decode()
void to_json(nlohmann::json& j, const TunnelStatus& tunnel);
void from_json(const nlohmann::json& j, TunnelStatus& tunnel);
void to_json(nlohmann::json& j, const PeeringStatus& status);
void from_json(const nlohmann::json& j, PeeringStatus& status);

// status.tunnel as `peering` (a Peering object) holds it now: Pending with no message when it
// has none, Error "(unreadable)" when it cannot be read.
TunnelStatus current_tunnel_status(const nlohmann::json& peering);

}  // namespace fed::fedapi

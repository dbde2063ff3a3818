#pragma once
// The unencrypted gateway tunnel (Peering spec.backend "vxlan", `join --tunnel-backend vxlan`):
// one VXLAN device whose address is the gateway's tunnel address, with, per peer gateway, a
// static FDB entry (its MAC -> its gateway address) and a permanent neighbour (its tunnel
// address -> that MAC). MACs derive from tunnel addresses (fabric::overlay_mac), so nothing is
// exchanged beyond what WireGuard needs, minus the keys. No handshake exists to watch: a peer is
// Connected once its entries are in place, and `join --wait`'s probe proves the path. Planning
// and applying are the node overlay's (fabric/link_plan, fabric/apply).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/node/fabric/link_plan.hpp"
#include "agent/node/os/link_manager.hpp"
#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::tunnel {

inline constexpr std::string_view kVxlanTunnelInterface = "fed.vxtun";

struct VxlanTunnelOptions {
  std::string interface = std::string(kVxlanTunnelInterface);
  std::uint32_t vni = 18961;  // the node overlay's is 18960: both share UDP 4789
  std::uint16_t port = 4789;
  std::uint32_t mtu = 1450;  // 1500 underlay minus VXLAN's 50 bytes over IPv4
};

// One peer gateway reached over the VXLAN tunnel.
struct VxlanTunnelPeer {
  std::string cluster_id;
  net::Ipv4 endpoint;        // its gateway address (the port is ours: both ends use `port`)
  net::Ipv4 tunnel_address;  // its tunnel address, the fabric's next hop toward it
};

// The device and entries for our tunnel address `address`/`prefix_length` and `peers`; no
// device when there are no peers. The source address is left to routing (local unset), so a
// gateway address that is a NAT's works as with WireGuard.
fabric::DesiredOverlay desired_vxlan_tunnel(const VxlanTunnelOptions& options, net::Ipv4 address,
                                            std::uint8_t prefix_length,
                                            const std::vector<VxlanTunnelPeer>& peers);

// Brings the device named in `options` to `desired` (created, repaired, or removed when
// desired has none). A link of that name without the agent's marker is a Conflict.
Status converge_vxlan_tunnel(os::LinkManager& links, const VxlanTunnelOptions& options,
                             const fabric::DesiredOverlay& desired);

}  // namespace fed::tunnel

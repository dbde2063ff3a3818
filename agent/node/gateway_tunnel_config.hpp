#pragma once
// The gateway tunnel the federation asks of this node (issue 5, docs/DATAPATH.md): whether this
// node is the gateway, its tunnel address, one TunnelPeer per ready WireGuard Peering
// (endpoint and key from the Peering's spec; ranges and tunnel address exactly as the fabric's
// state routes them), one VxlanTunnelPeer per ready vxlan Peering and, for every other Peering, the
// status that says why it is not in the tunnel yet. Pure: gateway_tunnel runs it on every pass.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/node/node_state_builder.hpp"
#include "agent/node/tunnel/tunnel_config.hpp"
#include "agent/node/tunnel/vxlan_tunnel.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

// A Peering carried by the tunnel.
struct TunnelPeering {
  std::string peering;  // the Peering's name
  tunnel::TunnelPeer peer;
};

// A Peering carried by the unencrypted VXLAN tunnel.
struct VxlanTunnelPeering {
  std::string peering;
  tunnel::VxlanTunnelPeer peer;
};

// A Peering left out of the tunnel, with the status to report for it.
struct WaitingPeering {
  std::string peering;
  fedapi::TunnelStatus status;  // Pending (the exchange is not finished) or Error (malformed)
};

struct GatewayTunnelConfig {
  bool gateway = false;              // this node is the gateway (the fabric's choice)
  std::optional<net::Ipv4> address;  // our tunnel address; none until a Peering carries one
  std::vector<TunnelPeering> peers;  // WireGuard
  std::vector<VxlanTunnelPeering> vxlan_peers;
  std::vector<WaitingPeering> waiting;
};

// An underlay endpoint.
struct Endpoint {
  net::Ipv4 address;
  std::uint16_t port = 0;
};

// "172.31.0.2:51820" → address and port; Invalid naming `field` otherwise.
Result<Endpoint> parse_endpoint(std::string_view text, std::string_view field);

// The tunnel for `in` (the inputs of build_node_state, whose peers it follows). Not the
// gateway: `gateway` false and nothing else. Invalid when the fabric's state is, or when the
// WireGuard Peerings name different or malformed local tunnel addresses (all of ours are one:
// the manager allocates one per cluster). A Peering with a malformed endpoint or public key is
// left out with an Error status instead, so the other peers keep working.
Result<GatewayTunnelConfig> derive_gateway_tunnel(const NodeStateInputs& in);

}  // namespace fed::federation

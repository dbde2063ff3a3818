#pragma once
// The tunnel state the gateway's agent reports in each Peering's status.tunnel (docs/JOIN.md):
// Connected once WireGuard saw a handshake younger than 3 minutes, otherwise a state and a
// message that names the hop ("no handshake with c2's gateway 172.31.0.2:51820 yet"). The
// messages hold no clock reading, so an unchanged tunnel never rewrites the status. Pure.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/node/tunnel/probe_history.hpp"
#include "agent/node/tunnel/tunnel_config.hpp"
#include "agent/node/tunnel/uapi_text.hpp"
#include "shared/fedapi/peering.hpp"

namespace fed::federation {

// WireGuard's REJECT_AFTER_TIME: a session older than this carries nothing. With keepalives
// (25 s) a working tunnel re-handshakes every 2 minutes, so a younger handshake means up.
inline constexpr std::int64_t kHandshakeFreshSeconds = 180;

// "c2's gateway 172.31.0.2:51820".
std::string gateway_hop(const tunnel::TunnelPeer& peer);

// The status of a peer the tunnel carries, from the daemon's view of it (`observed`: none when
// the daemon does not list the peer) at Unix time `now`: Connected when the last handshake is
// younger than kHandshakeFreshSeconds, Connecting while none was ever seen, Error once the last
// one is older (the message gives its UTC time, not an age, and what to check).
fedapi::TunnelStatus peer_tunnel_status(const tunnel::TunnelPeer& peer,
                                        const std::optional<tunnel::UapiPeer>& observed,
                                        std::int64_t now, std::uint16_t listen_port);

// `status` (the handshake's view) corrected by the echo probe: Lost when it says Connected but
// the peer gateway `peer_cluster`, at tunnel address `address`, went Silent.
fedapi::TunnelStatus probed_tunnel_status(fedapi::TunnelStatus status, tunnel::PeerAnswer answer,
                                          const std::string& peer_cluster, net::Ipv4 address);

// The status of every carried peer when the tunnel pass failed.
fedapi::TunnelStatus tunnel_error_status(const std::string& interface, const std::string& node,
                                         const std::string& message);

}  // namespace fed::federation

#pragma once
// The tunnel state the gateway's agent reports in each Peering's status.tunnel (docs/JOIN.md):
// Connected once WireGuard saw a handshake younger than 3 minutes, otherwise a state and a
// message that names the hop ("no handshake with c2's gateway 172.31.0.2:51820 yet"). The
// messages hold no clock reading, so an unchanged tunnel never rewrites the status. Pure.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fedapi/peering.hpp"
#include "tunnel/tunnel_config.hpp"
#include "tunnel/uapi_text.hpp"

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

// The status of every carried peer when the tunnel pass failed.
fedapi::TunnelStatus tunnel_error_status(const std::string& interface, const std::string& node,
                                         const std::string& message);

// The tunnel between two gateways from each side's report (`a` from cluster `a_id`'s Peering):
// Error when either says so, else the state of the side further behind; the message quotes each
// side that is not Connected in its gateway's own words, which name the hop ("c1: no handshake
// with c3's gateway 172.31.0.3:51820 yet; check ..."), or says the gateways have not reported.
fedapi::TunnelStatus pair_tunnel_status(const std::string& a_id, const fedapi::TunnelStatus& a,
                                        const std::string& b_id, const fedapi::TunnelStatus& b);

// status.tunnel as `peering` holds it now (Pending with no message when it has none).
fedapi::TunnelStatus current_tunnel_status(const nlohmann::json& peering);

}  // namespace fed::federation

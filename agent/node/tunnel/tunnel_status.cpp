#include "agent/node/tunnel/tunnel_status.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "shared/util/strings.hpp"

namespace fed::federation {
namespace {

std::string utc(std::int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string gateway_hop(const tunnel::TunnelPeer& peer) {
  return fmt::format("{}'s gateway {}:{}", peer.cluster_id, peer.endpoint.str(),
                     peer.endpoint_port);
}

fedapi::TunnelStatus peer_tunnel_status(const tunnel::TunnelPeer& peer,
                                        const std::optional<tunnel::UapiPeer>& observed,
                                        std::int64_t now, std::uint16_t listen_port) {
  using fedapi::TunnelState;
  if (!observed) {
    return {TunnelState::Connecting,
            "the WireGuard peer for " + gateway_hop(peer) + " is not configured yet"};
  }
  const std::string ports =
      listen_port == peer.endpoint_port
          ? fmt::format("UDP {}", listen_port)
          : fmt::format("UDP {} (ours) and {} (theirs)", listen_port, peer.endpoint_port);
  const std::string check = fmt::format(
      "check that {} passes both ways between the gateways and that {}'s fed-agent runs on its "
      "gateway node with this cluster's key in its Peering",
      ports, peer.cluster_id);
  if (observed->last_handshake_sec == 0) {
    return {TunnelState::Connecting, "no handshake with " + gateway_hop(peer) + " yet; " + check};
  }
  if (now - observed->last_handshake_sec >= kHandshakeFreshSeconds) {
    return {TunnelState::Error,
            fmt::format("no handshake with {} since {} (more than {} s); {}", gateway_hop(peer),
                        utc(observed->last_handshake_sec), kHandshakeFreshSeconds, check)};
  }
  return {TunnelState::Connected, ""};
}

fedapi::TunnelStatus probed_tunnel_status(fedapi::TunnelStatus status, tunnel::PeerAnswer answer,
                                          const std::string& peer_cluster, net::Ipv4 address) {
  if (status.state != fedapi::TunnelState::Connected || answer != tunnel::PeerAnswer::Silent) {
    return status;
  }
  return {fedapi::TunnelState::Lost,
          fmt::format("{}'s gateway no longer answers over the tunnel (echoes to its tunnel "
                      "address {} unanswered for 2 s or more): its gateway node, its fed-agent or "
                      "the WAN between the gateways is down; its pods get no traffic from here "
                      "until it answers again",
                      peer_cluster, address.str())};
}

fedapi::TunnelStatus tunnel_error_status(const std::string& interface, const std::string& node,
                                         const std::string& message) {
  return {fedapi::TunnelState::Error,
          fmt::format("tunnel {} on gateway node {}: {}", interface, node, message)};
}

}  // namespace fed::federation

#include <doctest/doctest.h>

#include "agent/node/tunnel/tunnel_status.hpp"

namespace fed::federation {
namespace {

constexpr std::int64_t kNow = 1795531342;  // 2026-11-24T14:42:22Z

tunnel::TunnelPeer c2() {
  tunnel::TunnelPeer p;
  p.cluster_id = "c2";
  p.public_key = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
  p.endpoint = net::Ipv4::parse("172.31.0.2").value();
  p.endpoint_port = 51820;
  return p;
}

tunnel::UapiPeer seen(std::int64_t last_handshake) {
  tunnel::UapiPeer p;
  p.last_handshake_sec = last_handshake;
  return p;
}

}  // namespace

TEST_CASE("the hop is named by cluster and endpoint") {
  CHECK(gateway_hop(c2()) == "c2's gateway 172.31.0.2:51820");
}

TEST_CASE("Connected while the last handshake is younger than 3 minutes") {
  const auto s = peer_tunnel_status(c2(), seen(kNow - 10), kNow, 51820);
  CHECK(s.state == fedapi::TunnelState::Connected);
  CHECK(s.message.empty());
  CHECK(peer_tunnel_status(c2(), seen(kNow - 179), kNow, 51820).state ==
        fedapi::TunnelState::Connected);
}

TEST_CASE("Connecting until a first handshake, naming the hop and what to check") {
  const auto s = peer_tunnel_status(c2(), seen(0), kNow, 51820);
  CHECK(s.state == fedapi::TunnelState::Connecting);
  CHECK(s.message.find("no handshake with c2's gateway 172.31.0.2:51820 yet; check that UDP 51820 "
                       "passes both ways") == 0);
  CHECK(s.message.find("c2's fed-agent") != std::string::npos);

  const auto other_port = peer_tunnel_status(c2(), seen(0), kNow, 51821);
  CHECK(other_port.message.find("UDP 51821 (ours) and 51820 (theirs)") != std::string::npos);

  const auto missing = peer_tunnel_status(c2(), std::nullopt, kNow, 51820);
  CHECK(missing.state == fedapi::TunnelState::Connecting);
  CHECK(missing.message.find("c2's gateway 172.31.0.2:51820 is not configured") !=
        std::string::npos);
}

TEST_CASE("Error once the last handshake is 3 minutes old; the text does not change with time") {
  const auto s = peer_tunnel_status(c2(), seen(kNow - 180), kNow, 51820);
  CHECK(s.state == fedapi::TunnelState::Error);
  CHECK(s.message.find("no handshake with c2's gateway 172.31.0.2:51820 since "
                       "2026-11-24T14:39:22Z (more than 180 s)") == 0);
  // A later pass writes the same text, so the status is not patched on every resync.
  CHECK(peer_tunnel_status(c2(), seen(kNow - 180), kNow + 600, 51820) == s);
}

TEST_CASE("Connected becomes Lost when the peer gateway went silent, and only then") {
  using fedapi::TunnelState;
  using tunnel::PeerAnswer;
  const auto address = net::Ipv4::parse("169.254.127.2").value();
  const fedapi::TunnelStatus up{TunnelState::Connected, ""};
  const auto lost = probed_tunnel_status(up, PeerAnswer::Silent, "c2", address);
  CHECK(lost.state == TunnelState::Lost);
  CHECK(lost.message.find("c2's gateway no longer answers over the tunnel") == 0);
  CHECK(lost.message.find("169.254.127.2") != std::string::npos);
  CHECK(probed_tunnel_status(up, PeerAnswer::Answering, "c2", address) == up);
  CHECK(probed_tunnel_status(up, PeerAnswer::Unknown, "c2", address) == up);
  // The handshake's own verdicts stand: the probe only speaks for a tunnel that looks up.
  const fedapi::TunnelStatus connecting{TunnelState::Connecting, "no handshake yet"};
  CHECK(probed_tunnel_status(connecting, PeerAnswer::Silent, "c2", address) == connecting);
  const fedapi::TunnelStatus error{TunnelState::Error, "old handshake"};
  CHECK(probed_tunnel_status(error, PeerAnswer::Silent, "c2", address) == error);
}

TEST_CASE("a failed pass names the interface and the node") {
  const auto s = tunnel_error_status("fed.wg", "node1", "wireguard-go: not found");
  CHECK(s.state == fedapi::TunnelState::Error);
  CHECK(s.message == "tunnel fed.wg on gateway node node1: wireguard-go: not found");
}

}  // namespace fed::federation

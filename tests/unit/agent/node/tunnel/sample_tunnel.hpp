#pragma once
// Tunnel values shared by the tunnel unit tests: a gateway with two peers whose keys derive
// from fixed private keys, so every run plans the same text.

#include <doctest/doctest.h>

#include <string>

#include "agent/node/tunnel/tunnel_plan.hpp"

namespace fed::tunnel::testing {

inline net::Ipv4 ip(std::string_view s) {
  auto r = net::Ipv4::parse(s);
  REQUIRE(r);
  return *r;
}

inline net::Cidr cidr(std::string_view s) {
  auto r = net::Cidr::parse(s);
  REQUIRE(r);
  return *r;
}

// A private key whose 32 bytes are all `fill` (clamping does not matter for X25519 here).
inline WgKey private_key(std::uint8_t fill) {
  WgKey k;
  k.bytes.fill(fill);
  return k;
}

inline std::string public_b64(std::uint8_t fill) {
  auto pub = public_key_of(private_key(fill));
  REQUIRE(pub);
  return pub->base64();
}

inline TunnelPeer peer(std::string id, std::uint8_t key_fill, std::string_view endpoint,
                       std::string_view tunnel_address, std::vector<std::string> ranges) {
  TunnelPeer p;
  p.cluster_id = std::move(id);
  p.public_key = public_b64(key_fill);
  p.endpoint = ip(endpoint);
  p.tunnel_address = ip(tunnel_address);
  for (const auto& r : ranges) p.ranges.push_back(cidr(r));
  return p;
}

// Gateway "a" (key fill 1, 169.254.64.1/18) peering with b and c.
inline DesiredTunnel sample_desired() {
  DesiredTunnel d;
  d.options.interface = "fed.wg";
  d.options.address = ip("169.254.64.1");
  d.private_key = private_key(1);
  d.peers.push_back(peer("b", 2, "192.0.2.2", "169.254.64.2", {"10.250.2.0/24", "10.61.2.0/24"}));
  d.peers.push_back(peer("c", 3, "192.0.2.3", "169.254.64.3", {"10.250.3.0/24"}));
  return d;
}

}  // namespace fed::tunnel::testing

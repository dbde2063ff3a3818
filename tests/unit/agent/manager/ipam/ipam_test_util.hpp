#pragma once
// Shared helpers of the IPAM tests: literal addresses and installed IPAMs.

#include <doctest/doctest.h>

#include <string>

#include "agent/manager/ipam/ipam.hpp"

namespace fed::test {

inline net::Ipv4 ip(const char* s) {
  auto r = net::Ipv4::parse(s);
  REQUIRE(r.has_value());
  return *r;
}

inline net::Cidr cidr(const char* s) {
  auto r = net::Cidr::parse(s);
  REQUIRE(r.has_value());
  return *r;
}

// The message of a failed result, after checking its code.
template <typename R>
std::string error_of(const R& result, ErrorCode code) {
  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().code() == code);
  return result.error().message();
}

// An IPAM installed with `pod` and `service`, checked.
inline void install(fabric::ipam::Ipam& ipam, const char* pod, const char* service) {
  auto local = ipam.install({cidr(pod), cidr(service), {}});
  REQUIRE_MESSAGE(local.has_value(), (local ? "" : local.error().message()));
}

// Peers `id` in both directions as far as this IPAM goes: its announced networks, and how it
// sees ours (nullopt: not remapped).
inline fabric::ipam::PeerSubnets peer(fabric::ipam::Ipam& ipam, const char* id, const char* pod,
                                      const char* external, fabric::ipam::LocalRemaps view = {}) {
  auto subnets = ipam.get_or_remap_networks(id, cidr(pod), cidr(external));
  REQUIRE_MESSAGE(subnets.has_value(), (subnets ? "" : subnets.error().message()));
  REQUIRE(ipam.set_local_remaps(id, view).has_value());
  return *subnets;
}

}  // namespace fed::test

#pragma once
// IPv4 networks as `init` and `join` handle them: parsing flag values, overlap checks and the
// smallest network covering every node's spec.podCIDR. Pure.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.hpp"

namespace fed::plugin {

struct Ipv4Cidr {
  std::uint32_t network = 0;  // host order, host bits zero
  int prefix = 0;             // 0..32

  // "10.244.0.0/16".
  std::string str() const;
  // The netmask as a host-order integer.
  std::uint32_t mask() const;
  // Whether `other` lies entirely inside this network.
  bool contains(const Ipv4Cidr& other) const;
  friend bool operator==(const Ipv4Cidr&, const Ipv4Cidr&) = default;
};

// Parses "a.b.c.d/n". Invalid (one line, with the fix) for anything else, including host bits
// set ("10.0.0.1/16": use 10.0.0.0/16).
Result<Ipv4Cidr> parse_ipv4_cidr(std::string_view text);

// Whether the two networks share any address.
bool overlaps(const Ipv4Cidr& a, const Ipv4Cidr& b);

// The smallest network that contains every one of `networks` (which must not be empty).
Ipv4Cidr smallest_containing(const std::vector<Ipv4Cidr>& networks);

}  // namespace fed::plugin

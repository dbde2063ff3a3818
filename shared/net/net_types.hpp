#pragma once
// IPv4 value types shared by the datapath interfaces and the planners: addresses, prefixes
// and MAC addresses. Pure values; parsing errors are Invalid and quote the input.

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::net {

// An IPv4 address in host byte order.
struct Ipv4 {
  std::uint32_t value = 0;

  // Parses dotted-quad notation ("10.0.0.5").
  static Result<Ipv4> parse(std::string_view s);
  // Dotted-quad notation.
  std::string str() const;
  auto operator<=>(const Ipv4&) const = default;
};

// An IPv4 prefix in canonical form: host bits of `network` are always zero.
struct Cidr {
  Ipv4 network;
  std::uint8_t length = 0;

  // Parses "a.b.c.d/len"; host bits set is Invalid (the message suggests the network form).
  static Result<Cidr> parse(std::string_view s);
  // The prefix of `length` bits that contains `ip`.
  static Cidr containing(Ipv4 ip, std::uint8_t length);
  // The /32 prefix of one address.
  static Cidr host(Ipv4 ip) { return Cidr{ip, 32}; }

  std::uint32_t mask() const { return length == 0 ? 0 : ~std::uint32_t{0} << (32 - length); }
  bool contains(Ipv4 ip) const { return (ip.value & mask()) == network.value; }
  bool contains(const Cidr& other) const {
    return other.length >= length && contains(other.network);
  }
  bool overlaps(const Cidr& other) const { return contains(other) || other.contains(*this); }
  // The last address of the prefix.
  Ipv4 last() const { return Ipv4{network.value | ~mask()}; }
  // "a.b.c.d/len".
  std::string str() const;
  auto operator<=>(const Cidr&) const = default;
};

// MapIPToNetwork (spec 002 §1.4): the first `network.length` bits of `network`, the rest of
// `ip` (the iptables NETMAP mapping). nullopt network ("None") keeps `ip`.
Ipv4 map_ip_to_network(Ipv4 ip, const std::optional<Cidr>& network);

// The smallest prefix that contains every one of `networks` (which must not be empty).
Cidr smallest_containing(const std::vector<Cidr>& networks);

// A 48-bit Ethernet address.
struct MacAddr {
  std::array<std::uint8_t, 6> bytes{};

  // Parses "aa:bb:cc:dd:ee:ff".
  static Result<MacAddr> parse(std::string_view s);
  // Lower-case colon notation.
  std::string str() const;
  auto operator<=>(const MacAddr&) const = default;
};

}  // namespace fed::net

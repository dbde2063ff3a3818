#include "shared/net/net_types.hpp"

#include <charconv>
#include <cstdio>

namespace fed::net {
namespace {

// Parses a decimal number in [0, max] that fills `s` completely. A leading zero ("010") is
// refused: inet_aton would read it as octal, so the same text would mean two addresses.
bool parse_uint(std::string_view s, unsigned max, unsigned& out) {
  if (s.empty() || s.size() > 3 || (s.size() > 1 && s[0] == '0')) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out <= max;
}

}  // namespace

Result<Ipv4> Ipv4::parse(std::string_view s) {
  std::uint32_t value = 0;
  std::string_view rest = s;
  for (int i = 0; i < 4; ++i) {
    auto dot = rest.find('.');
    if ((i < 3) != (dot != std::string_view::npos)) break;
    unsigned octet = 0;
    if (!parse_uint(rest.substr(0, dot), 255, octet)) break;
    value = (value << 8) | octet;
    if (i == 3) return Ipv4{value};
    rest = rest.substr(dot + 1);
  }
  return fail(ErrorCode::Invalid,
              "\"" + std::string(s) + "\" is not an IPv4 address (expected a.b.c.d, each 0 to 255 without leading zeros)");
}

std::string Ipv4::str() const {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", (value >> 24) & 0xff, (value >> 16) & 0xff,
                (value >> 8) & 0xff, value & 0xff);
  return buf;
}

Result<Cidr> Cidr::parse(std::string_view s) {
  auto slash = s.find('/');
  unsigned length = 0;
  if (slash == std::string_view::npos || !parse_uint(s.substr(slash + 1), 32, length)) {
    return fail(
        ErrorCode::Invalid,
        "\"" + std::string(s) +
            "\" is not an IPv4 CIDR (expected a.b.c.d/n, n from 0 to 32, e.g. 10.244.0.0/16)");
  }
  auto ip = Ipv4::parse(s.substr(0, slash));
  if (!ip) {
    return fail(ErrorCode::Invalid,
                "\"" + std::string(s) + "\" is not an IPv4 CIDR: " + ip.error().message());
  }
  Cidr c = containing(*ip, static_cast<std::uint8_t>(length));
  if (c.network != *ip) {
    return fail(ErrorCode::Invalid,
                "\"" + std::string(s) + "\" has host bits set; did you mean " + c.str() + "?");
  }
  return c;
}

Cidr Cidr::containing(Ipv4 ip, std::uint8_t length) {
  Cidr c{Ipv4{0}, length};
  c.network.value = ip.value & c.mask();
  return c;
}

std::string Cidr::str() const {
  return network.str() + "/" + std::to_string(length);
}

Ipv4 map_ip_to_network(Ipv4 ip, const std::optional<Cidr>& network) {
  if (!network) return ip;
  const std::uint32_t m = network->mask();
  return Ipv4{(network->network.value & m) | (ip.value & ~m)};
}

Cidr smallest_containing(const std::vector<Cidr>& networks) {
  Cidr out = networks.front();
  for (const auto& n : networks) {
    while (!out.contains(n))
      out = Cidr::containing(out.network, static_cast<std::uint8_t>(out.length - 1));
  }
  return out;
}

Result<MacAddr> MacAddr::parse(std::string_view s) {
  MacAddr mac;
  if (s.size() == 17) {
    bool ok = true;
    for (std::size_t i = 0; i < 6 && ok; ++i) {
      if (i < 5 && s[i * 3 + 2] != ':') ok = false;
      auto part = s.substr(i * 3, 2);
      auto [ptr, ec] = std::from_chars(part.data(), part.data() + 2, mac.bytes[i], 16);
      ok = ok && ec == std::errc() && ptr == part.data() + 2;
    }
    if (ok) return mac;
  }
  return fail(ErrorCode::Invalid,
              "\"" + std::string(s) + "\" is not a MAC address (expected aa:bb:cc:dd:ee:ff)");
}

std::string MacAddr::str() const {
  char buf[18];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", bytes[0], bytes[1], bytes[2],
                bytes[3], bytes[4], bytes[5]);
  return buf;
}

}  // namespace fed::net

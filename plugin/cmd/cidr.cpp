#include "cmd/cidr.hpp"

#include <charconv>

#include "util/strings.hpp"

namespace fed::plugin {
namespace {

Unexpected invalid(std::string_view text, std::string_view why) {
  return fail(ErrorCode::Invalid, "\"" + std::string(text) + "\" is not an IPv4 CIDR (" +
                                      std::string(why) + "); write it as a.b.c.d/n, e.g. " +
                                      "10.244.0.0/16");
}

bool parse_int(std::string_view s, int max, int& out) {
  if (s.empty() || s.size() > 3) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0 && out <= max;
}

std::string dotted(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
         std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
}

}  // namespace

std::string Ipv4Cidr::str() const {
  return dotted(network) + "/" + std::to_string(prefix);
}

std::uint32_t Ipv4Cidr::mask() const {
  return prefix == 0 ? 0u : ~std::uint32_t{0} << (32 - prefix);
}

bool Ipv4Cidr::contains(const Ipv4Cidr& other) const {
  return other.prefix >= prefix && (other.network & mask()) == network;
}

Result<Ipv4Cidr> parse_ipv4_cidr(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return invalid(text, "no /prefix");
  const auto octets = util::split(text.substr(0, slash), '.');
  if (octets.size() != 4) return invalid(text, "the address needs four numbers");
  std::uint32_t address = 0;
  for (const auto& o : octets) {
    int v = 0;
    if (!parse_int(o, 255, v)) return invalid(text, "each number is 0 to 255");
    address = (address << 8) | static_cast<std::uint32_t>(v);
  }
  int prefix = 0;
  if (!parse_int(text.substr(slash + 1), 32, prefix)) {
    return invalid(text, "the prefix is 0 to 32");
  }
  Ipv4Cidr cidr{address, prefix};
  if ((address & cidr.mask()) != address) {
    cidr.network = address & cidr.mask();
    return fail(ErrorCode::Invalid,
                "\"" + std::string(text) + "\" has host bits set; use its network, " + cidr.str());
  }
  return cidr;
}

bool overlaps(const Ipv4Cidr& a, const Ipv4Cidr& b) {
  return a.contains(b) || b.contains(a);
}

Ipv4Cidr smallest_containing(const std::vector<Ipv4Cidr>& networks) {
  Ipv4Cidr out = networks.front();
  for (const auto& n : networks) {
    while (!out.contains(n)) {
      --out.prefix;
      out.network &= out.mask();
    }
  }
  return out;
}

}  // namespace fed::plugin

#include "agent/manager/ipam/validate.hpp"

namespace fed::fabric::ipam {
namespace {

bool alnum_lower(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace

Result<net::Cidr> parse_cidr(std::string_view field, std::string_view text) {
  auto cidr = net::Cidr::parse(text);
  if (!cidr) return std::move(cidr).error().with_context(field);
  return cidr;
}

Result<std::optional<net::Cidr>> parse_optional_cidr(std::string_view field,
                                                     std::string_view text) {
  if (text.empty() || text == "None") return std::optional<net::Cidr>();
  auto cidr = net::Cidr::parse(text);
  if (!cidr) {
    return std::move(cidr).error().with_context(std::string(field) +
                                                " (a CIDR, or None when not remapped)");
  }
  return std::optional<net::Cidr>(*cidr);
}

Result<net::Ipv4> parse_ip(std::string_view field, std::string_view text) {
  auto ip = net::Ipv4::parse(text);
  if (!ip) return std::move(ip).error().with_context(field);
  return ip;
}

std::string cidr_or_none(const std::optional<net::Cidr>& cidr) {
  return cidr ? cidr->str() : std::string("None");
}

Status check_network(std::string_view field, const net::Cidr& cidr) {
  if (cidr.length > 32) {
    return fail(ErrorCode::Invalid, std::string(field) + ": prefix length " +
                                        std::to_string(cidr.length) + " is over 32");
  }
  auto canonical = net::Cidr::containing(cidr.network, cidr.length);
  if (canonical != cidr) {
    return fail(ErrorCode::Invalid, std::string(field) + ": \"" + cidr.network.str() + "/" +
                                        std::to_string(cidr.length) +
                                        "\" has host bits set; did you mean " + canonical.str() +
                                        "?");
  }
  return ok();
}

Status check_cluster_id(std::string_view id) {
  bool valid = !id.empty() && id.size() <= 63 && alnum_lower(id.front()) && alnum_lower(id.back());
  for (char c : id) valid = valid && (alnum_lower(c) || c == '-');
  if (!valid) {
    return fail(ErrorCode::Invalid,
                "cluster id \"" + std::string(id) +
                    "\" is not a DNS label; use 1-63 lower-case letters, digits and '-', "
                    "starting and ending with a letter or digit (e.g. \"c2\")");
  }
  return ok();
}

}  // namespace fed::fabric::ipam

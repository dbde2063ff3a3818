#include "agent/manager/ipam/address_blocks.hpp"

#include <algorithm>

namespace fed::fabric::ipam {

std::uint8_t block_length(std::uint8_t wanted, const net::Cidr& external_cidr) {
  return std::clamp<std::uint8_t>(wanted, external_cidr.length, 32);
}

std::string block_name(const net::Cidr& block) {
  std::string name = block.str();
  std::replace(name.begin(), name.end(), '.', '-');
  std::replace(name.begin(), name.end(), '/', '-');
  return name;
}

Result<net::Cidr> block_from_name(std::string_view name) {
  // a-b-c-d-len: the last dash is the slash, the others are dots.
  std::string text(name);
  const auto dashes = std::count(text.begin(), text.end(), '-');
  auto invalid = [&] {
    return fail(ErrorCode::Invalid, "\"" + std::string(name) +
                                        "\" is not a block name (a-b-c-d-length, as "
                                        "10-0-2-0-24 for 10.0.2.0/24)");
  };
  if (dashes != 4) return invalid();
  const auto last = text.rfind('-');
  text[last] = '/';
  std::replace(text.begin(), text.end(), '-', '.');
  auto cidr = net::Cidr::parse(text);
  if (!cidr || block_name(*cidr) != name) return invalid();
  return *cidr;
}

std::string nat_mapping_name(std::string_view peer, const net::Cidr& block) {
  return std::string(peer) + "." + block_name(block);
}

Result<NatMappingName> parse_nat_mapping_name(std::string_view name) {
  const auto dot = name.find('.');
  if (dot == std::string_view::npos) return NatMappingName{std::string(name), std::nullopt};
  auto block = block_from_name(name.substr(dot + 1));
  if (!block) {
    return fail(ErrorCode::Invalid,
                "NatMapping " + std::string(name) + ": " + block.error().message());
  }
  return NatMappingName{std::string(name.substr(0, dot)), *block};
}

}  // namespace fed::fabric::ipam

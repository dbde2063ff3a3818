#include "agent/manager/membership/tunnel_addresses.hpp"

#include <cstdint>

#include <nlohmann/json.hpp>

#include "shared/net/net_types.hpp"

namespace fed::federation {
namespace {

constexpr std::uint32_t address(std::uint32_t c, std::uint32_t d) {
  return (169u << 24) | (254u << 16) | (c << 8) | d;
}

std::optional<std::string> lowest_free(std::uint32_t first, std::uint32_t last,
                                       const std::set<std::string>& used) {
  for (std::uint32_t a = first; a <= last; ++a) {
    std::string candidate = net::Ipv4{a}.str();
    if (!used.contains(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> next_member_tunnel_address(const std::set<std::string>& used) {
  return lowest_free(address(64, 2), address(126, 254), used);
}

std::optional<std::string> next_host_tunnel_address(const std::set<std::string>& used) {
  return lowest_free(address(127, 1), address(127, 254), used);
}

std::string tunnel_address_of(const nlohmann::json& object) {
  const auto& meta = object.value("metadata", nlohmann::json::object());
  return meta.value("annotations", nlohmann::json::object())
      .value(std::string(kTunnelAddressAnnotation), "");
}

}  // namespace fed::federation

#pragma once
// The addresses on the federation's tunnel interfaces, all of 169.254.64.0/18, each unique in
// the federation so that one gateway's tunnels never share a peer address: the first host has
// 169.254.64.1 (as it did when it was the only one); members take the lowest free one of
// 169.254.64.2 - 169.254.126.254, recorded on their FederatedCluster; every other host takes
// the lowest free one of 169.254.127.1 - 169.254.127.254, recorded on its FederationHost. Each
// host is the hub of its own tunnels with the members (docs/HA-STATE.md).

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace fed::federation {

// On a FederatedCluster or FederationHost: its address on every tunnel.
inline constexpr std::string_view kTunnelAddressAnnotation = "kubectl-fed.io/tunnel-address";
inline constexpr std::string_view kFirstHostTunnelAddress = "169.254.64.1";

// The lowest member address not in `used`; nullopt when the range is full.
std::optional<std::string> next_member_tunnel_address(const std::set<std::string>& used);
// The lowest address of an added host not in `used`; nullopt when the range is full.
std::optional<std::string> next_host_tunnel_address(const std::set<std::string>& used);

// The object's kTunnelAddressAnnotation, "" when it has none.
std::string tunnel_address_of(const nlohmann::json& object);

}  // namespace fed::federation

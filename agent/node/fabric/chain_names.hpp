#pragma once
// Names of the nat chains and maps the agent owns. Chains start with "FED-" and stay under the
// iptables limit of 28 characters; per-peer names carry a readable prefix of the cluster id plus
// a hash of all of it.

#include <cstddef>
#include <string>
#include <string_view>

namespace fed::fabric {

// Longest chain name the iptables CLI accepts (XT_EXTENSION_MAXNAMELEN 29 with the NUL).
inline constexpr std::size_t kMaxChainNameLength = 28;

// Jumped to first from nat PREROUTING: ingress NETMAP and dispatch to mapping chains.
inline constexpr std::string_view kPreroutingChain = "FED-PREROUTING";
// Jumped to first from nat POSTROUTING: egress NETMAP and SNAT toward peers.
inline constexpr std::string_view kPostroutingChain = "FED-POSTROUTING";

// The nftables map of one peer's ExternalCIDR mappings in the agent's table (os/dnat_table.hpp):
// "peer_<id prefix>_<8 hex>". (Releases before it kept them in legacy chains "FED-MAP-<id
// prefix>-<8 hex>"; like every FED- chain no longer planned, the agent deletes those.)
std::string mapping_map(std::string_view cluster_id);

}  // namespace fed::fabric

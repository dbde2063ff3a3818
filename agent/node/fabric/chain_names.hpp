#pragma once
// Names of the nat chains the agent owns. All start with "FED-" and stay under the iptables
// limit of 28 characters whatever the cluster id: per-peer chains carry a readable prefix of
// the id plus a hash of all of it.

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

// The DNAT chain of one peer's ExternalCIDR mappings: "FED-MAP-<id prefix>-<8 hex>".
std::string mapping_chain(std::string_view cluster_id);

}  // namespace fed::fabric

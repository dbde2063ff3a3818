#pragma once
// The gateway's endpoint mappings as nftables maps (os/dnat_table.hpp): what the state asks for
// and the transaction from what the table holds. Pure functions on plain values.
//
// For each peer with mappings, with RP the peer's PodCIDR and LRE our ExternalCIDR as the peer
// sees it, map peer_<id> holds <external IP> : <endpoint> per mapping and the chain holds
//   ip saddr RP ip daddr LRE dnat to ip daddr map @peer_<id>
// An address of LRE with no element passes the rule untranslated (and unrouted: nothing else
// claims LRE).

#include "agent/node/fabric/node_state.hpp"
#include "agent/node/os/dnat_table.hpp"

namespace fed::fabric {

// Empty (no table) unless this node is the gateway and a peer has mappings.
os::DnatState desired_dnat(const NodeNetworkState& state);

// The one transaction that turns `observed` into `desired`: elements added and removed per map
// (a changed endpoint is removed and added), maps created and deleted, the chain's rules
// rewritten when they differ, the table deleted when nothing is wanted and rebuilt when it holds
// anything the agent did not write.
os::DnatChanges plan_dnat(const os::DnatState& desired, const os::DnatState& observed);

// Elements of every map.
std::size_t entry_count(const os::DnatState& state);

}  // namespace fed::fabric

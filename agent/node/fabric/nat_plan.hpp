#pragma once
// The gateway's nat rules: what the state asks for and the plan from the kernel's snapshot.
// Pure functions on plain values.
//
// For each peer, with L our PodCIDR, LR our PodCIDR as the peer sees it, RP/RE the peer's
// PodCIDR/ExternalCIDR as we see them and LRE our ExternalCIDR as the peer sees it:
//   FED-POSTROUTING  -s L  -d RP|RE -j NETMAP --to LR            (only when LR != L)
//                    ! -s L -d RP|RE -j SNAT --to first(LR)       (node and transit sources)
//   FED-PREROUTING   -s RP -d LR   -j NETMAP --to L              (only when LR != L)
// nat PREROUTING and POSTROUTING jump to the FED- chains in their first rule, once. Traffic
// from RP to our ExternalCIDR is DNATed before it reaches these chains, by the nftables maps
// of fabric/dnat_plan.hpp.
// Rules of one chain never overlap, so their order inside the chain does not matter.

#include <map>
#include <string>
#include <vector>

#include "agent/node/fabric/node_state.hpp"
#include "agent/node/os/nat_table.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

struct DesiredNat {
  std::map<std::string, std::vector<os::NatRule>> chains;  // every FED- chain, with its rules
  std::map<std::string, os::NatRule> hooks;  // built-in chain -> the jump that must come first
};

// Comment on the rules in built-in chains and on per-peer NETMAP/SNAT rules.
inline constexpr std::string_view kRuleCommentPrefix = "fed:";

// Empty unless this node is the gateway and has peers. No mapping appears here.
DesiredNat desired_nat(const NodeNetworkState& state);

// The changes that turn `observed` into `desired`: missing chains created, stale, duplicate and
// foreign rules in FED- chains deleted, missing rules inserted where the plan has them (a
// chain reordered by hand is rewritten), the built-in jumps made first
// and single, FED- chains that are no longer wanted flushed and deleted.
os::NatChanges plan_nat(const DesiredNat& desired, const os::NatSnapshot& observed);

// Counts of the desired state, for metrics.
std::size_t rule_count(const DesiredNat& desired);

}  // namespace fed::fabric

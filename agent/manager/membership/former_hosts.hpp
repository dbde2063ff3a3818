#pragma once
// A host removed from the federation (`kubectl fed host remove`) leaves each member a tunnel
// with it: the member's Peering and NatMapping named after it, and its entry in the member's
// IPAM, written while that host led. The removed host is gone for good, so the leading manager
// takes them away when it next looks at the member (docs/HA.md "Removing a host"). Pure.

#include <set>
#include <string>
#include <vector>

namespace fed::federation {

// The names among `member_peerings` (the Peerings on one member, each named after its peer's
// cluster id) that are neither a host of the federation nor a member (a direct link): those of
// former hosts. Nothing while `hosts` is empty — the FederationHosts are not known yet, and a
// federation always has one.
std::vector<std::string> former_hosts(const std::vector<std::string>& member_peerings,
                                      const std::set<std::string>& hosts,
                                      const std::set<std::string>& members);

}  // namespace fed::federation

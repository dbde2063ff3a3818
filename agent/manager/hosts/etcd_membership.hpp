#pragma once
// What the host controller does to the federation etcd's membership for one FederationHost
// (docs/HA.md): the decision, from the host's peer URL and the etcd member list. Pure.
//
// A new host's member joins as a learner: it replicates without voting, so a member that never
// starts (a wrong address, a firewall) costs the cluster no quorum; it is promoted once it has
// started and caught up (etcd refuses the promotion before). A host is removed only while
// another voting member remains.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shared/etcd/types.hpp"

namespace fed::hosts {

enum class MemberAction {
  None,      // nothing to change
  Add,       // add as a learner
  Promote,   // started learner: make it a voting member
  Remove,    // the host is going: remove its member
  KeepLast,  // the host is going but its member is the last voting one: refuse
};

struct MemberDecision {
  MemberAction action = MemberAction::None;
  std::optional<etcd::MemberInfo> member;  // the host's member, when it has one
};

// The member whose peer URLs include `peer_url`.
std::optional<etcd::MemberInfo> member_at(const std::vector<etcd::MemberInfo>& members,
                                          const std::string& peer_url);

MemberDecision decide(const std::vector<etcd::MemberInfo>& members, const std::string& peer_url,
                      bool deleting);

// What the host's member starts with (--initial-cluster): every member as name=peerURL, the
// not yet started one (no name) named `host`. Sorted by name, so it reads the same every time.
std::string initial_cluster(const std::vector<etcd::MemberInfo>& members, const std::string& host,
                            const std::string& peer_url);

// The phase of the status: Adding, Learner, Member or Removing.
std::string phase_of(const std::optional<etcd::MemberInfo>& member, bool deleting);

// An etcd member id as etcdctl prints it: lower-case hexadecimal.
std::string hex_id(std::uint64_t id);

}  // namespace fed::hosts

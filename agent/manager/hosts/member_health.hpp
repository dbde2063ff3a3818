#pragma once
// How a host's federation etcd member is doing, as the leader's host controller reports it in
// the FederationHost's status.etcd and `kubectl fed status` shows it (docs/HA.md): whether it
// answers, follows a leader, raises an alarm, and how far its raft log is behind the leader's.
// Pure.

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/etcd/types.hpp"

namespace fed::hosts {

// Entries a member may be behind the leader and still count as in sync. A busy member is a few
// entries behind at any instant; etcd itself sends a snapshot rather than entries to one more
// than 5000 behind (--snapshot-catchup-entries), so 1000 marks a member really falling behind
// without reporting (and rewriting the status for) every write in flight.
inline constexpr std::uint64_t kLagTolerance = 1000;

struct MemberHealth {
  std::string health;                // healthy, lagging, alarm, no leader, unreachable
  std::optional<std::uint64_t> lag;  // entries behind the leader, when lagging
  std::string message;               // why it is not healthy
  bool raft_leader = false;          // it is the etcd cluster's leader

  friend bool operator==(const MemberHealth&, const MemberHealth&) = default;
};

// From the member's Maintenance.Status (`error` when it did not answer) and its leader's
// (absent when unknown: the member is then judged without its lag).
MemberHealth member_health(const std::optional<etcd::StatusResponse>& member,
                           const std::string& error,
                           const std::optional<etcd::StatusResponse>& leader);

// status.etcd as a merge patch: lag, message and raftLeader are null when absent, so that
// patching a healthy member over a lagging one removes them.
nlohmann::json health_status(const MemberHealth& health);

}  // namespace fed::hosts

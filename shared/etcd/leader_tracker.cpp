#include "shared/etcd/leader_tracker.hpp"

#include <cassert>
#include <string>

namespace fed::etcd {

LeaderTracker::LeaderTracker(std::size_t members) : members_(members) {
  assert(members > 0);
}

std::optional<std::size_t> LeaderTracker::index_of(std::uint64_t id) const {
  if (id == 0) return std::nullopt;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (members_[i].id == id) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> LeaderTracker::leader() const {
  const auto i = index_of(leader_id_);
  if (!i || !members_[*i].healthy) return std::nullopt;
  return i;
}

TrackerChange LeaderTracker::finish(std::optional<std::size_t> before, bool repoll) {
  TrackerChange c;
  c.old_leader = before;
  c.new_leader = leader();
  c.leader_changed = c.old_leader != c.new_leader;
  c.repoll = repoll;
  if (c.new_leader) {
    if (last_known_ && *last_known_ != *c.new_leader) ++changes_;
    last_known_ = c.new_leader;
  }
  return c;
}

TrackerChange LeaderTracker::on_status(std::size_t i, const StatusResponse& status) {
  const auto before = leader();
  auto& m = members_.at(i);
  if (status.header.member_id != 0) m.id = status.header.member_id;
  m.healthy = true;
  m.consecutive_failures = 0;
  m.term = status.raft_term;
  bool repoll = false;
  if (status.raft_term > term_) {
    term_ = status.raft_term;
    leader_id_ = status.leader;  // 0 while this member has no leader (an election is running)
    stale_ = status.leader == 0;
    repoll = stale_;
  } else if (status.raft_term == term_ && status.leader != 0) {
    leader_id_ = status.leader;  // the one leader of this term
    stale_ = false;
  }
  return finish(before, repoll);
}

TrackerChange LeaderTracker::on_header(std::size_t i, const ResponseHeader& header) {
  const auto before = leader();
  auto& m = members_.at(i);
  if (header.member_id != 0) m.id = header.member_id;
  m.healthy = true;
  m.consecutive_failures = 0;
  bool repoll = false;
  if (header.raft_term > term_) {
    // A new term: an election happened. Keep routing to the old leader (a follower forwards, a
    // dead one fails and is dropped) until a status names the new one.
    m.term = header.raft_term;
    term_ = header.raft_term;
    stale_ = true;
    repoll = true;
  }
  return finish(before, repoll);
}

TrackerChange LeaderTracker::on_failure(std::size_t i) {
  const auto before = leader();
  auto& m = members_.at(i);
  m.healthy = false;
  ++m.consecutive_failures;
  return finish(before, before && *before == i);
}

Result<RoutingPolicy> parse_routing_policy(std::string_view text) {
  if (text == "round-robin") return RoutingPolicy::RoundRobin;
  if (text == "leader") return RoutingPolicy::Leader;
  return fail(ErrorCode::Invalid,
              "unknown routing policy \"" + std::string(text) + "\"; use round-robin or leader");
}

std::string_view to_string(RoutingPolicy policy) {
  return policy == RoutingPolicy::Leader ? "leader" : "round-robin";
}

std::size_t Picker::round_robin(const LeaderTracker& tracker) {
  const std::size_t n = tracker.members().size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (next_ + k) % n;
    if (tracker.healthy(i)) {
      next_ = (i + 1) % n;
      return i;
    }
  }
  const std::size_t i = next_ % n;  // nobody is healthy: keep cycling so someone gets retried
  next_ = (i + 1) % n;
  return i;
}

std::size_t Picker::pick(RoutingPolicy policy, const LeaderTracker& tracker) {
  if (policy == RoutingPolicy::Leader) {
    if (const auto leader = tracker.leader()) return *leader;
  }
  return round_robin(tracker);
}

std::size_t Picker::next_after(std::size_t exclude, const LeaderTracker& tracker) {
  const std::size_t n = tracker.members().size();
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t i = (exclude + k) % n;
    if (tracker.healthy(i)) return i;
  }
  return (exclude + 1) % n;
}

}  // namespace fed::etcd

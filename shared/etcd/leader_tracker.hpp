#pragma once
// Who leads the etcd cluster, learned from Maintenance.Status polls of every member and from the
// raft term in every response header. Pure state machine (no clock, no I/O, not thread-safe; the
// owner locks), so the rules are unit-tested:
//   - a status naming a leader at a term >= the known term is believed (higher terms win: Raft
//     has at most one leader per term);
//   - a header or status with a higher term than the known one means an election happened: the
//     leader is kept as a guess but marked stale and the owner should poll at once;
//   - a member whose poll or request failed is unhealthy until it answers again; an unhealthy
//     leader is forgotten, so picks fall back to round-robin over the healthy members.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "shared/etcd/types.hpp"
#include "shared/result/result.hpp"

namespace fed::etcd {

struct MemberState {
  std::uint64_t id = 0;  // learned from its answers; 0 until it answered once
  bool healthy = true;   // optimistic until the first failure
  std::uint64_t term = 0;
  int consecutive_failures = 0;
};

// What one observation changed.
struct TrackerChange {
  bool leader_changed = false;  // leader() differs from before
  bool repoll = false;          // the leader is stale: poll every member now
  std::optional<std::size_t> old_leader;
  std::optional<std::size_t> new_leader;
};

class LeaderTracker final {
 public:
  explicit LeaderTracker(std::size_t members);

  // Member `i` answered Maintenance.Status.
  TrackerChange on_status(std::size_t i, const StatusResponse& status);
  // Member `i` answered some request with this header.
  TrackerChange on_header(std::size_t i, const ResponseHeader& header);
  // Member `i` did not answer (connect error, timeout, 5xx).
  TrackerChange on_failure(std::size_t i);

  // The leader's index among the endpoints, when known and healthy.
  std::optional<std::size_t> leader() const;
  // True when a higher term was seen after the leader was learned.
  bool stale() const { return stale_; }
  std::uint64_t term() const { return term_; }
  std::uint64_t leader_id() const { return leader_id_; }
  // Transitions from one known leader to a different one.
  std::uint64_t leader_changes() const { return changes_; }
  const std::vector<MemberState>& members() const { return members_; }
  bool healthy(std::size_t i) const { return members_.at(i).healthy; }

 private:
  std::optional<std::size_t> index_of(std::uint64_t id) const;
  TrackerChange finish(std::optional<std::size_t> before, bool repoll);

  std::vector<MemberState> members_;
  std::uint64_t term_ = 0;
  std::uint64_t leader_id_ = 0;  // 0 = unknown
  bool stale_ = false;
  std::optional<std::size_t> last_known_;
  std::uint64_t changes_ = 0;
};

// How a request or a new connection chooses its member.
enum class RoutingPolicy {
  RoundRobin,  // cycle over healthy members, like clientv3's balancer (the baseline)
  Leader,      // the leader; round-robin while it is unknown or unhealthy
};

// "round-robin" or "leader"; Invalid names the accepted values.
Result<RoutingPolicy> parse_routing_policy(std::string_view text);
std::string_view to_string(RoutingPolicy policy);

// Chooses members under a policy. Not thread-safe; the owner locks with its tracker.
class Picker final {
 public:
  // The member for the next request. Round-robin skips unhealthy members unless all are.
  std::size_t pick(RoutingPolicy policy, const LeaderTracker& tracker);
  // The round-robin choice after `exclude` (for a retry on another member).
  std::size_t next_after(std::size_t exclude, const LeaderTracker& tracker);

 private:
  std::size_t round_robin(const LeaderTracker& tracker);
  std::size_t next_ = 0;
};

}  // namespace fed::etcd

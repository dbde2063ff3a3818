#pragma once
// When to move etcd leadership, from one leader-health class per period. Pure: no clock (time is
// the period count), no I/O; the caller runs MoveLeader when told to.
//   - classes 1 (network delay) and 3 (delay + overload) held for `hold_periods` consecutive
//     periods on the same leader => move to the healthiest follower: healthy, lowest measured peer
//     round trip (unknown round trips rank last, ties by index);
//   - classes 0 (idle) and 2 (overload: the load follows the leader anyway) keep the leader and
//     restart the count, as do a leader change and a period without a classification;
//   - no flapping: after a move, `cooldown_periods` pass without another, and a member moved
//     away from is not chosen as a target for `avoid_periods`.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fed::etcdproxy::classifier {

struct MovePolicyConfig {
  int hold_periods = 3;
  int cooldown_periods = 30;
  int avoid_periods = 120;
};

struct Follower {
  std::size_t member = 0;
  bool healthy = true;
  std::optional<double> peer_rtt_seconds;  // leader -> this follower, as measured
};

struct PolicyInput {
  std::optional<std::size_t> leader;  // nullopt: no leader known
  std::optional<int> leader_class;    // nullopt: this period's scrape or inference failed
  std::vector<Follower> followers;
};

struct MoveDecision {
  std::optional<std::size_t> target;  // move leadership here; nullopt = keep
  std::string reason;                 // for logs and status output
};

class LeaderMovePolicy final {
 public:
  explicit LeaderMovePolicy(MovePolicyConfig config = {}) : config_(config) {}

  // One period's observation; at most one move per call.
  MoveDecision on_period(const PolicyInput& input);

  int consecutive_unhealthy() const { return streak_; }
  std::uint64_t moves() const { return moves_; }

 private:
  std::optional<std::size_t> pick_target(const PolicyInput& input) const;

  MovePolicyConfig config_;
  std::int64_t period_ = 0;
  int streak_ = 0;
  std::optional<std::size_t> streak_leader_;
  std::optional<std::int64_t> last_move_;
  std::optional<std::size_t> deposed_;
  std::uint64_t moves_ = 0;
};

// True for the classes that call for a move (1 and 3).
bool calls_for_move(int leader_class);

}  // namespace fed::etcdproxy::classifier

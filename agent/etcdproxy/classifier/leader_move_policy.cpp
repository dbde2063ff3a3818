#include "agent/etcdproxy/classifier/leader_move_policy.hpp"

namespace fed::etcdproxy::classifier {

bool calls_for_move(int leader_class) {
  return leader_class == 1 || leader_class == 3;
}

std::optional<std::size_t> LeaderMovePolicy::pick_target(const PolicyInput& input) const {
  const Follower* best = nullptr;
  for (const auto& f : input.followers) {
    if (!f.healthy || f.member == input.leader) continue;
    if (deposed_ && *deposed_ == f.member && last_move_ &&
        period_ - *last_move_ < config_.avoid_periods) {
      continue;
    }
    if (best == nullptr) {
      best = &f;
    } else if (f.peer_rtt_seconds &&
               (!best->peer_rtt_seconds || *f.peer_rtt_seconds < *best->peer_rtt_seconds)) {
      best = &f;
    }
  }
  if (best == nullptr) return std::nullopt;
  return best->member;
}

MoveDecision LeaderMovePolicy::on_period(const PolicyInput& input) {
  ++period_;
  if (!input.leader || !input.leader_class) {
    streak_ = 0;
    streak_leader_.reset();
    return {std::nullopt, input.leader ? "no classification this period" : "no leader known"};
  }
  if (streak_leader_ != input.leader) {
    streak_ = 0;
    streak_leader_ = input.leader;
  }
  if (!calls_for_move(*input.leader_class)) {
    streak_ = 0;
    return {std::nullopt, "class " + std::to_string(*input.leader_class) + ": leader kept"};
  }
  ++streak_;
  if (streak_ < config_.hold_periods) {
    return {std::nullopt, "class " + std::to_string(*input.leader_class) + " for " +
                              std::to_string(streak_) + "/" + std::to_string(config_.hold_periods) +
                              " periods"};
  }
  if (last_move_ && period_ - *last_move_ < config_.cooldown_periods) {
    return {std::nullopt, "cooling down after the last move"};
  }
  const auto target = pick_target(input);
  if (!target) return {std::nullopt, "no healthy follower to move to"};
  last_move_ = period_;
  deposed_ = input.leader;
  streak_ = 0;
  ++moves_;
  return {target, "class " + std::to_string(*input.leader_class) + " held for " +
                      std::to_string(config_.hold_periods) + " periods"};
}

}  // namespace fed::etcdproxy::classifier

#include "agent/manager/membership/pending_recheck.hpp"

#include <algorithm>

namespace fed::federation {

using namespace std::chrono_literals;

std::chrono::seconds PendingRecheck::next(const std::string& id, const std::string& state,
                                          Clock::time_point now, Clock::duration member_age) {
  std::lock_guard lock(mu_);
  auto [it, first_pass] = pending_.try_emplace(id);
  Pending& p = it->second;
  if (state.empty()) {  // kept, so that a pending spell after it counts as a change
    p = Pending{state, now, 0s};
    return connected_;
  }
  if (first_pass) {
    p = Pending{state, now - std::max(member_age, Clock::duration::zero()), 1s};
  } else if (p.state != state) {
    p = Pending{state, now, 1s};
  }
  if (now - p.since >= fast_) p.delay = std::min(std::max(p.delay * 2, 2s), max_);
  return p.delay;
}

void PendingRecheck::forget(const std::string& id) {
  std::lock_guard lock(mu_);
  pending_.erase(id);
}

}  // namespace fed::federation

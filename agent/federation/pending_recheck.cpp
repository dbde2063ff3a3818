#include "federation/pending_recheck.hpp"

#include <algorithm>

namespace fed::federation {

using namespace std::chrono_literals;

std::chrono::seconds PendingRecheck::next(const std::string& id, const std::string& state,
                                          Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (state.empty()) {
    pending_.erase(id);
    return connected_;
  }
  Pending& p = pending_[id];
  if (p.state != state) p = Pending{state, now, 1s};
  if (now - p.since >= fast_) p.delay = std::min(std::max(p.delay * 2, 2s), max_);
  return p.delay;
}

void PendingRecheck::forget(const std::string& id) {
  std::lock_guard lock(mu_);
  pending_.erase(id);
}

}  // namespace fed::federation

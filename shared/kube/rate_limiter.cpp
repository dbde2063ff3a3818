#include "shared/kube/rate_limiter.hpp"

#include <algorithm>
#include <thread>
#include <utility>

namespace fed::kube {

TokenBucket::TokenBucket(double qps, int burst, NowFn now)
    : qps_(qps),
      burst_(static_cast<double>(std::max(burst, 1))),
      now_(std::move(now)),
      tokens_(burst_),
      last_(now_()) {}

void TokenBucket::refill_locked(Clock::time_point now) {
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  last_ = now;
}

TokenBucket::Clock::duration TokenBucket::reserve() {
  if (qps_ <= 0) return Clock::duration::zero();
  std::lock_guard lock(mu_);
  refill_locked(now_());
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucket::try_take() {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mu_);
  refill_locked(now_());
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

void TokenBucket::acquire() {
  const auto wait = reserve();
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

double TokenBucket::tokens() {
  std::lock_guard lock(mu_);
  refill_locked(now_());
  return tokens_;
}

}  // namespace fed::kube

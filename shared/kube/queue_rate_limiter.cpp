#include "shared/kube/queue_rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fed::kube {

ItemExponentialRateLimiter::ItemExponentialRateLimiter(std::chrono::nanoseconds base,
                                                       std::chrono::nanoseconds max)
    : base_(base), max_(max) {}

std::chrono::nanoseconds ItemExponentialRateLimiter::when(const Request& item) {
  int exp = 0;
  {
    std::lock_guard lock(mu_);
    exp = failures_[item]++;
  }
  const double ns = static_cast<double>(base_.count()) * std::pow(2.0, exp);
  if (!std::isfinite(ns) || ns > static_cast<double>(max_.count())) return max_;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
}

void ItemExponentialRateLimiter::forget(const Request& item) {
  std::lock_guard lock(mu_);
  failures_.erase(item);
}

int ItemExponentialRateLimiter::num_requeues(const Request& item) {
  std::lock_guard lock(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst, TokenBucket::NowFn now)
    : bucket_(qps, burst, std::move(now)) {}

std::chrono::nanoseconds BucketRateLimiter::when(const Request&) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(bucket_.reserve());
}

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<QueueRateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

std::chrono::nanoseconds MaxOfRateLimiter::when(const Request& item) {
  std::chrono::nanoseconds longest{0};
  for (auto& l : limiters_) longest = std::max(longest, l->when(item));
  return longest;
}

void MaxOfRateLimiter::forget(const Request& item) {
  for (auto& l : limiters_) l->forget(item);
}

int MaxOfRateLimiter::num_requeues(const Request& item) {
  int most = 0;
  for (auto& l : limiters_) most = std::max(most, l->num_requeues(item));
  return most;
}

std::unique_ptr<QueueRateLimiter> default_controller_rate_limiter() {
  std::vector<std::unique_ptr<QueueRateLimiter>> v;
  v.push_back(std::make_unique<ItemExponentialRateLimiter>());
  v.push_back(std::make_unique<BucketRateLimiter>());
  return std::make_unique<MaxOfRateLimiter>(std::move(v));
}

}  // namespace fed::kube

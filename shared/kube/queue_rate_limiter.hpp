#pragma once
// How long a failed key waits before its next attempt (client-go's workqueue rate limiters):
// per-key exponential backoff, an overall token bucket, and the maximum of several.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "shared/kube/rate_limiter.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::kube {

struct RequestHash {
  std::size_t operator()(const Request& r) const {
    const std::size_t h = std::hash<std::string>{}(r.ns);
    return h ^ (std::hash<std::string>{}(r.name) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
};

class QueueRateLimiter {
 public:
  virtual ~QueueRateLimiter() = default;
  // The delay before `item` is retried; counts as one more failure of it.
  virtual std::chrono::nanoseconds when(const Request& item) = 0;
  // Forgets the failures of `item` (it succeeded).
  virtual void forget(const Request& item) = 0;
  // How many times `item` has failed since it was last forgotten.
  virtual int num_requeues(const Request& item) = 0;
};

// base * 2^failures, capped at max (5 ms .. 1000 s by default, as controller-runtime).
class ItemExponentialRateLimiter final : public QueueRateLimiter {
 public:
  explicit ItemExponentialRateLimiter(std::chrono::nanoseconds base = std::chrono::milliseconds(5),
                                      std::chrono::nanoseconds max = std::chrono::seconds(1000));
  std::chrono::nanoseconds when(const Request& item) override;
  void forget(const Request& item) override;
  int num_requeues(const Request& item) override;

 private:
  const std::chrono::nanoseconds base_, max_;
  std::mutex mu_;
  std::unordered_map<Request, int, RequestHash> failures_;
};

// An overall limit across keys: a token bucket of qps/burst (10/100 by default).
class BucketRateLimiter final : public QueueRateLimiter {
 public:
  BucketRateLimiter(
      double qps = 10, int burst = 100,
      TokenBucket::NowFn now = [] { return TokenBucket::Clock::now(); });
  std::chrono::nanoseconds when(const Request& item) override;
  void forget(const Request&) override {}
  int num_requeues(const Request&) override { return 0; }

 private:
  TokenBucket bucket_;
};

// The longest delay of its members; forget and counts go to all of them.
class MaxOfRateLimiter final : public QueueRateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<QueueRateLimiter>> limiters);
  std::chrono::nanoseconds when(const Request& item) override;
  void forget(const Request& item) override;
  int num_requeues(const Request& item) override;

 private:
  std::vector<std::unique_ptr<QueueRateLimiter>> limiters_;
};

// controller-runtime's default: max(per-key 5 ms..1000 s exponential, 10 qps / 100 burst bucket).
std::unique_ptr<QueueRateLimiter> default_controller_rate_limiter();

}  // namespace fed::kube

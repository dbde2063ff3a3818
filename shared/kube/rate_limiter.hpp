#pragma once
// A thread-safe token bucket: `qps` tokens per second, holding at most `burst`. Callers reserve a
// token and learn how long to wait for it (tokens may go negative, like Go's rate.Limiter, so
// waiters queue fairly in arrival order). The clock is injectable for tests.

#include <chrono>
#include <functional>
#include <mutex>

namespace fed::kube {

class TokenBucket final {
 public:
  using Clock = std::chrono::steady_clock;
  using NowFn = std::function<Clock::time_point()>;

  // qps <= 0 means unlimited. burst < 1 is treated as 1. The bucket starts full.
  TokenBucket(
      double qps, int burst, NowFn now = [] { return Clock::now(); });

  // Takes a token and returns how long the caller must wait before using it (zero if one
  // was available).
  Clock::duration reserve();
  // Takes a token only if one is available now.
  bool try_take();
  // reserve() and sleep for the returned wait.
  void acquire();
  // Tokens currently available (may be negative while reservations wait); for tests and metrics.
  double tokens();

 private:
  void refill_locked(Clock::time_point now);

  const double qps_;
  const double burst_;
  NowFn now_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace fed::kube

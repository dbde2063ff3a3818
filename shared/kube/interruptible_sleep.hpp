#pragma once
// Sleeping that ends early when a stop is requested: retry backoff and rate-limit waits must
// not hold up a shutdown.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

namespace fed::kube {

// Sleeps for `d` or until `stop` is requested; returns false if it was cut short by stop.
inline bool sleep_unless_stopped(std::chrono::nanoseconds d, const std::stop_token& stop) {
  if (d <= std::chrono::nanoseconds::zero()) return !stop.stop_requested();
  if (!stop.stop_possible()) {
    std::this_thread::sleep_for(d);
    return true;
  }
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  // The predicate never holds: only a timeout or a stop request ends the wait.
  cv.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace fed::kube

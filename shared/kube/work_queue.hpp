#pragma once
// WorkQueue: controller-runtime's rate-limited, de-duplicating work queue of reconcile Requests.
//  - A key queued several times is processed once (the "dirty" set).
//  - A key is never handed to two workers at once: added while being processed, it is queued
//    again only when done() is called (the "processing" set).
//  - add_after() delays a key; add_rate_limited() delays it by the rate limiter (per-key
//    exponential backoff and an overall bucket); forget() resets its backoff.
// Thread-safe; get() blocks.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "shared/kube/queue_rate_limiter.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::kube {

// What shut_down() does with keys still queued: hand them out (Yes) or drop them (No).
enum class Drain { Yes, No };

class WorkQueue final {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WorkQueue(std::unique_ptr<QueueRateLimiter> limiter = default_controller_rate_limiter());
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `item` unless it is already queued; ignored after shut_down().
  void add(const Request& item);
  // Queues `item` after `delay` (at once if <= 0). A key already waiting keeps the earlier time.
  void add_after(const Request& item, std::chrono::nanoseconds delay);
  // add_after(item, limiter.when(item)): the next step of the item's backoff.
  void add_rate_limited(const Request& item);
  // Resets the item's backoff (call after a successful reconcile).
  void forget(const Request& item);
  // Failures of the item since it was last forgotten.
  int num_requeues(const Request& item);

  // Blocks until a key is ready and marks it processing; nullopt once shut down (after the
  // remaining keys with Drain::Yes). The caller must call done() with it.
  std::optional<Request> get();
  // Ends processing of `item`; if it was added meanwhile, it is queued again now.
  void done(const Request& item);

  // Wakes every get(); delayed keys are dropped, queued ones per `drain`.
  void shut_down(Drain drain = Drain::Yes);
  bool shutting_down() const;

  // Keys ready to be handed out.
  std::size_t len() const;
  // Keys waiting for their add_after() time.
  std::size_t waiting() const;

 private:
  void add_locked(const Request& item);
  // Moves waiting keys whose time has come into the queue; returns the next deadline, if any.
  std::optional<Clock::time_point> promote_locked(Clock::time_point now);

  std::unique_ptr<QueueRateLimiter> limiter_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Request> queue_;
  std::unordered_set<Request, RequestHash> dirty_;
  std::unordered_set<Request, RequestHash> processing_;
  std::multimap<Clock::time_point, Request> waiting_;
  std::unordered_map<Request, Clock::time_point, RequestHash> waiting_at_;
  bool shutting_down_ = false;
  bool drain_ = true;
};

}  // namespace fed::kube

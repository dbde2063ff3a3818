#include "shared/kube/work_queue.hpp"

#include <utility>

namespace fed::kube {

WorkQueue::WorkQueue(std::unique_ptr<QueueRateLimiter> limiter) : limiter_(std::move(limiter)) {}

void WorkQueue::add_locked(const Request& item) {
  if (shutting_down_) return;
  if (!dirty_.insert(item).second) return;   // already queued (or re-added while processing)
  if (processing_.count(item) != 0) return;  // done() queues it
  queue_.push_back(item);
  cv_.notify_one();
}

void WorkQueue::add(const Request& item) {
  std::lock_guard lock(mu_);
  add_locked(item);
}

void WorkQueue::add_after(const Request& item, std::chrono::nanoseconds delay) {
  if (delay <= std::chrono::nanoseconds::zero()) {
    add(item);
    return;
  }
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  const auto at = Clock::now() + std::chrono::duration_cast<Clock::duration>(delay);
  if (auto it = waiting_at_.find(item); it != waiting_at_.end()) {
    if (it->second <= at) return;  // already due earlier
    auto range = waiting_.equal_range(it->second);
    for (auto w = range.first; w != range.second; ++w) {
      if (w->second == item) {
        waiting_.erase(w);
        break;
      }
    }
    it->second = at;
  } else {
    waiting_at_.emplace(item, at);
  }
  waiting_.emplace(at, item);
  // A getter may be sleeping until a later deadline (or forever): let it recompute.
  cv_.notify_all();
}

void WorkQueue::add_rate_limited(const Request& item) {
  add_after(item, limiter_->when(item));
}

void WorkQueue::forget(const Request& item) {
  limiter_->forget(item);
}

int WorkQueue::num_requeues(const Request& item) {
  return limiter_->num_requeues(item);
}

std::optional<WorkQueue::Clock::time_point> WorkQueue::promote_locked(Clock::time_point now) {
  while (!waiting_.empty() && waiting_.begin()->first <= now) {
    Request item = std::move(waiting_.begin()->second);
    waiting_.erase(waiting_.begin());
    waiting_at_.erase(item);
    add_locked(item);
  }
  if (waiting_.empty()) return std::nullopt;
  return waiting_.begin()->first;
}

std::optional<Request> WorkQueue::get() {
  std::unique_lock lock(mu_);
  while (true) {
    std::optional<Clock::time_point> next;
    if (!shutting_down_) next = promote_locked(Clock::now());
    if (!queue_.empty() && (!shutting_down_ || drain_)) {
      Request item = std::move(queue_.front());
      queue_.pop_front();
      processing_.insert(item);
      dirty_.erase(item);
      return item;
    }
    if (shutting_down_) return std::nullopt;
    if (next) {
      cv_.wait_until(lock, *next);
    } else {
      cv_.wait(lock);
    }
  }
}

void WorkQueue::done(const Request& item) {
  std::lock_guard lock(mu_);
  processing_.erase(item);
  if (dirty_.count(item) != 0) {
    queue_.push_back(item);
    cv_.notify_one();
  }
}

void WorkQueue::shut_down(Drain drain) {
  std::lock_guard lock(mu_);
  shutting_down_ = true;
  drain_ = drain == Drain::Yes;
  waiting_.clear();
  waiting_at_.clear();
  cv_.notify_all();
}

bool WorkQueue::shutting_down() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

std::size_t WorkQueue::len() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

std::size_t WorkQueue::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_.size();
}

}  // namespace fed::kube

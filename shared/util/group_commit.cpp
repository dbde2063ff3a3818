#include "shared/util/group_commit.hpp"

namespace fed::util {

Status GroupCommit::commit() {
  std::unique_lock lock(mu_);
  const std::uint64_t mine = ++requested_;
  for (;;) {
    // Flushes cover growing prefixes of the requests. Any successful flush that covers `mine`
    // began after the change and so stored it; a failure counts only while no success does.
    if (ok_through_ >= mine) return ok();
    if (failed_through_ >= mine) return last_failure_;
    if (!flushing_) break;
    done_cv_.wait(lock);
  }
  flushing_ = true;
  const std::uint64_t covers = requested_;
  lock.unlock();
  Status status = flush_();
  lock.lock();
  flushing_ = false;
  ++flushes_;
  if (status) {
    ok_through_ = covers;
  } else {
    failed_through_ = covers;
    last_failure_ = status;
  }
  done_cv_.notify_all();
  return status;
}

std::uint64_t GroupCommit::flushes() const {
  std::lock_guard lock(mu_);
  return flushes_;
}

}  // namespace fed::util

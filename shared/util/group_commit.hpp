#pragma once
// Group commit: many callers each need "my change is stored", and storing is a whole-object write
// whose cost grows with the object (the host IpamState, a NatMapping with thousands of entries).
// One write runs at a time; every caller that arrives while it runs shares the next one, so a
// burst of N changes costs about two writes instead of N.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "shared/result/result.hpp"

namespace fed::util {

class GroupCommit final {
 public:
  // `flush` stores everything changed so far. It is called by one caller at a time, without any
  // lock of this class held, and must read the state it stores only after it was called.
  explicit GroupCommit(std::function<Status()> flush) : flush_(std::move(flush)) {}
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Call after making a change (with the change's own lock released). Returns once a flush that
  // began after this call has ended — run by this caller or by another — with that flush's
  // status, so a success means the change is stored.
  Status commit();

  // Flushes run so far (for tests and metrics).
  std::uint64_t flushes() const;

 private:
  std::function<Status()> flush_;
  mutable std::mutex mu_;
  std::condition_variable done_cv_;
  std::uint64_t requested_ = 0;  // commit() calls so far, numbered from 1
  bool flushing_ = false;
  std::uint64_t ok_through_ = 0;      // requests covered by a flush that succeeded
  std::uint64_t failed_through_ = 0;  // requests covered by the last flush that failed ...
  Status last_failure_ = ok();        // ... and its error
  std::uint64_t flushes_ = 0;
};

}  // namespace fed::util

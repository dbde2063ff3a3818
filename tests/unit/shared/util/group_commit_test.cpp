#include "shared/util/group_commit.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

using fed::ErrorCode;
using fed::Status;
using fed::util::GroupCommit;

namespace {

// A store whose flush can be held open, to pile callers up behind a running write.
struct Store {
  std::atomic<int> value{0};   // the "state": changes made so far
  std::atomic<int> stored{0};  // what the last flush wrote
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
  int in_flush = 0;
  int max_in_flush = 0;
  bool fail_next = false;

  Status flush() {
    std::unique_lock lock(mu);
    ++in_flush;
    max_in_flush = std::max(max_in_flush, in_flush);
    cv.notify_all();
    cv.wait(lock, [&] { return !hold; });
    --in_flush;
    if (fail_next) {
      fail_next = false;
      return fed::fail(ErrorCode::Unavailable, "write refused");
    }
    stored = value.load();
    return fed::ok();
  }
};

}  // namespace

TEST_CASE("one caller: commit runs the flush and returns its status") {
  Store store;
  GroupCommit commit([&] { return store.flush(); });
  store.value = 1;
  CHECK(commit.commit());
  CHECK(store.stored == 1);
  store.fail_next = true;
  auto failed = commit.commit();
  REQUIRE_FALSE(failed);
  CHECK(failed.error().code() == ErrorCode::Unavailable);
  CHECK(commit.flushes() == 2);
}

TEST_CASE("callers arriving during a write share the next one, and each change is stored") {
  Store store;
  GroupCommit commit([&] { return store.flush(); });
  {
    std::lock_guard lock(store.mu);
    store.hold = true;
  }
  // The first caller starts a write and is held inside it.
  std::thread first([&] {
    store.value.fetch_add(1);
    CHECK(commit.commit());
  });
  {
    std::unique_lock lock(store.mu);
    store.cv.wait(lock, [&] { return store.in_flush == 1; });
  }
  constexpr int kCallers = 50;
  std::vector<std::thread> callers;
  std::atomic<int> unstored{0};
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&] {
      const int mine = store.value.fetch_add(1) + 1;
      if (!commit.commit() || store.stored.load() < mine) unstored.fetch_add(1);
    });
  }
  // Every caller has made its change; let the writes go.
  while (store.value.load() < kCallers + 1) std::this_thread::yield();
  {
    std::lock_guard lock(store.mu);
    store.hold = false;
  }
  store.cv.notify_all();
  first.join();
  for (auto& t : callers) t.join();
  CHECK(unstored == 0);
  CHECK(store.stored == kCallers + 1);
  CHECK(store.max_in_flush == 1);
  // The held write, then at most one more per caller that raced past it before it ended (in
  // practice one, rarely a few): far fewer than one per caller.
  CHECK(commit.flushes() >= 2);
  CHECK(commit.flushes() < kCallers / 2);
}

TEST_CASE("a failed write fails the callers it covered; the next caller writes again") {
  Store store;
  int flush_number = 0;
  // The first write succeeds (held open), the second — the one the waiters share — fails.
  GroupCommit commit([&] {
    if (++flush_number == 2) store.fail_next = true;
    return store.flush();
  });
  {
    std::lock_guard lock(store.mu);
    store.hold = true;
  }
  std::thread first([&] { CHECK(commit.commit()); });
  {
    std::unique_lock lock(store.mu);
    store.cv.wait(lock, [&] { return store.in_flush == 1; });
  }
  std::atomic<int> arrived{0}, failures{0};
  std::vector<std::thread> waiters;
  for (int i = 0; i < 5; ++i) {
    waiters.emplace_back([&] {
      arrived.fetch_add(1);
      auto status = commit.commit();
      if (!status && status.error().message() == "write refused") failures.fetch_add(1);
    });
  }
  while (arrived.load() < 5) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // all of them inside commit()
  {
    std::lock_guard lock(store.mu);
    store.hold = false;
  }
  store.cv.notify_all();
  first.join();
  for (auto& t : waiters) t.join();
  CHECK(commit.flushes() == 2);
  CHECK(failures == 5);
  store.value = 7;
  CHECK(commit.commit());
  CHECK(store.stored == 7);
}

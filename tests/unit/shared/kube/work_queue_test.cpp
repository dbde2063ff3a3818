#include "shared/kube/work_queue.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace fed::kube {

using namespace std::chrono_literals;

namespace {
std::unique_ptr<QueueRateLimiter> fast_limiter() {
  return std::make_unique<ItemExponentialRateLimiter>(1ms, 50ms);
}
}  // namespace

TEST_CASE("adding a queued key again does not duplicate it") {
  WorkQueue q(fast_limiter());
  q.add({"ns", "a"});
  q.add({"ns", "a"});
  q.add({"ns", "b"});
  CHECK(q.len() == 2);
  auto first = q.get();
  REQUIRE(first);
  CHECK(*first == Request{"ns", "a"});
  q.done(*first);
  auto second = q.get();
  REQUIRE(second);
  CHECK(*second == Request{"ns", "b"});
  q.done(*second);
  CHECK(q.len() == 0);
}

TEST_CASE("a key added while processing is requeued only at done()") {
  WorkQueue q(fast_limiter());
  q.add({"", "a"});
  auto item = q.get();
  REQUIRE(item);
  q.add({"", "a"});
  q.add({"", "a"});
  CHECK(q.len() == 0);  // not handed to another worker meanwhile
  q.done(*item);
  CHECK(q.len() == 1);
  auto again = q.get();
  REQUIRE(again);
  q.done(*again);
  CHECK(q.len() == 0);
}

TEST_CASE("no key is processed by two workers at once, and every add is seen") {
  WorkQueue q(fast_limiter());
  constexpr int kKeys = 5;
  constexpr int kWorkers = 6;
  std::mutex mu;
  std::set<std::string> in_flight;
  std::atomic<bool> overlap{false};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (auto item = q.get()) {
        {
          std::lock_guard lock(mu);
          if (!in_flight.insert(item->name).second) overlap = true;
        }
        std::this_thread::sleep_for(200us);
        {
          std::lock_guard lock(mu);
          in_flight.erase(item->name);
        }
        ++processed;
        q.done(*item);
      }
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p) {
    producers.emplace_back([&] {
      for (int i = 0; i < 500; ++i) q.add({"ns", "k" + std::to_string(i % kKeys)});
    });
  }
  for (auto& t : producers) t.join();
  // Drain: wait until nothing is queued, then stop.
  for (int i = 0; i < 500 && q.len() > 0; ++i) std::this_thread::sleep_for(2ms);
  std::this_thread::sleep_for(20ms);
  q.shut_down();
  for (auto& t : workers) t.join();
  CHECK_FALSE(overlap.load());
  CHECK(processed.load() >= kKeys);
  CHECK(processed.load() <= 2000);  // de-duplicated, never more than the adds
}

TEST_CASE("add_after delays a key; the earliest time wins") {
  WorkQueue q(fast_limiter());
  const auto start = std::chrono::steady_clock::now();
  q.add_after({"", "late"}, 1s);
  q.add_after({"", "late"}, 60ms);  // earlier: replaces
  q.add_after({"", "late"}, 5s);    // later: ignored
  CHECK(q.waiting() == 1);
  auto item = q.get();
  REQUIRE(item);
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(waited >= 60ms);
  CHECK(waited < 900ms);
  q.done(*item);
  CHECK(q.waiting() == 0);
}

TEST_CASE("rate-limited requeue backs off exponentially per key; forget resets it") {
  ItemExponentialRateLimiter l(5ms, 1000s);
  const Request a{"", "a"};
  CHECK(l.when(a) == 5ms);
  CHECK(l.when(a) == 10ms);
  CHECK(l.when(a) == 20ms);
  CHECK(l.num_requeues(a) == 3);
  CHECK(l.when({"", "b"}) == 5ms);  // per key
  l.forget(a);
  CHECK(l.num_requeues(a) == 0);
  CHECK(l.when(a) == 5ms);
  for (int i = 0; i < 40; ++i) (void)l.when(a);
  CHECK(l.when(a) == std::chrono::nanoseconds(1000s));  // capped
}

TEST_CASE("the default limiter is the max of per-key backoff and an overall bucket") {
  auto clock_time = TokenBucket::Clock::time_point{};
  std::vector<std::unique_ptr<QueueRateLimiter>> v;
  v.push_back(std::make_unique<ItemExponentialRateLimiter>(5ms, 1000s));
  v.push_back(std::make_unique<BucketRateLimiter>(10, 2, [&] { return clock_time; }));
  MaxOfRateLimiter m(std::move(v));
  CHECK(m.when({"", "a"}) == 5ms);    // bucket token free
  CHECK(m.when({"", "b"}) == 5ms);    // bucket token free
  CHECK(m.when({"", "c"}) == 100ms);  // bucket empty: 1/qps
  CHECK(m.num_requeues({"", "a"}) == 1);
  m.forget({"", "a"});
  CHECK(m.num_requeues({"", "a"}) == 0);
}

TEST_CASE("add_rate_limited delays by the limiter and counts requeues") {
  WorkQueue q(fast_limiter());
  const Request a{"", "a"};
  q.add_rate_limited(a);
  q.add_rate_limited(a);
  CHECK(q.num_requeues(a) == 2);
  auto item = q.get();
  REQUIRE(item);
  q.done(*item);
  q.forget(a);
  CHECK(q.num_requeues(a) == 0);
}

TEST_CASE("shutdown wakes blocked workers; Drain::No drops queued keys") {
  WorkQueue q(fast_limiter());
  std::atomic<int> ended{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      while (auto item = q.get()) q.done(*item);
      ++ended;
    });
  }
  std::this_thread::sleep_for(20ms);
  q.shut_down();
  for (auto& t : workers) t.join();
  CHECK(ended.load() == 3);
  q.add({"", "ignored"});
  CHECK(q.len() == 0);
  CHECK(q.shutting_down());

  WorkQueue drained(fast_limiter());
  drained.add({"", "x"});
  drained.add({"", "y"});
  drained.add_after({"", "z"}, 1h);
  drained.shut_down(Drain::Yes);
  CHECK(drained.get().has_value());
  CHECK(drained.get().has_value());
  CHECK_FALSE(drained.get().has_value());  // the delayed key is dropped

  WorkQueue dropped(fast_limiter());
  dropped.add({"", "x"});
  dropped.shut_down(Drain::No);
  CHECK_FALSE(dropped.get().has_value());
}

}  // namespace fed::kube

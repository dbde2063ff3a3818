#include "shared/util/parallel_for.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <mutex>
#include <set>

using fed::util::parallel_for;

TEST_CASE("parallel_for: every index once, never more threads at once than asked") {
  for (std::size_t max_threads : {0u, 1u, 3u, 64u}) {
    std::mutex mu;
    std::multiset<std::size_t> seen;
    int running = 0, peak = 0;
    parallel_for(20, max_threads, [&](std::size_t i) {
      {
        std::lock_guard lock(mu);
        seen.insert(i);
        peak = std::max(peak, ++running);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      std::lock_guard lock(mu);
      --running;
    });
    CHECK(seen.size() == 20);
    for (std::size_t i = 0; i < 20; ++i) CHECK(seen.count(i) == 1);
    CHECK(peak <= static_cast<int>(std::max<std::size_t>(max_threads, 1)));
  }
}

TEST_CASE("parallel_for: nothing to do returns at once") {
  int calls = 0;
  parallel_for(0, 8, [&](std::size_t) { ++calls; });
  CHECK(calls == 0);
}

#pragma once
// Independent blocking calls (API writes to many objects, one rollout per cluster) run side by
// side on a bounded number of threads: the time is that of the slowest batch, not the sum.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace fed::util {

// Calls work(i) for every i in [0, count), on at most `max_threads` threads at once (at least
// one); returns when every call has returned. `work` must be safe to call concurrently and
// must not throw.
template <typename Work>
void parallel_for(std::size_t count, std::size_t max_threads, Work work) {
  const std::size_t threads = std::min(count, std::max<std::size_t>(max_threads, 1));
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) work(i);
    });
  }
}

}  // namespace fed::util

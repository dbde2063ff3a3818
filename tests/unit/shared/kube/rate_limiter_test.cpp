#include "shared/kube/rate_limiter.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

namespace fed::kube {

using namespace std::chrono_literals;

namespace {
struct FakeClock {
  TokenBucket::Clock::time_point t{};
  TokenBucket::NowFn fn() {
    return [this] { return t; };
  }
};
}  // namespace

TEST_CASE("the bucket starts full, then refills at qps up to burst") {
  FakeClock clock;
  TokenBucket b(10.0, 3, clock.fn());
  CHECK(b.try_take());
  CHECK(b.try_take());
  CHECK(b.try_take());
  CHECK_FALSE(b.try_take());
  clock.t += 100ms;  // one token
  CHECK(b.try_take());
  CHECK_FALSE(b.try_take());
  clock.t += 10s;  // capped at burst
  CHECK(b.tokens() == doctest::Approx(3.0));
}

TEST_CASE("reservations queue up: each waits one more interval") {
  FakeClock clock;
  TokenBucket b(4.0, 1, clock.fn());
  CHECK(b.reserve() == TokenBucket::Clock::duration::zero());
  CHECK(b.reserve() == std::chrono::duration_cast<TokenBucket::Clock::duration>(250ms));
  CHECK(b.reserve() == std::chrono::duration_cast<TokenBucket::Clock::duration>(500ms));
  clock.t += 750ms;
  CHECK(b.tokens() == doctest::Approx(1.0));
}

TEST_CASE("qps <= 0 means unlimited; burst < 1 means 1") {
  TokenBucket unlimited(0.0, 0);
  for (int i = 0; i < 1000; ++i) CHECK(unlimited.try_take());
  FakeClock clock;
  TokenBucket b(1.0, 0, clock.fn());
  CHECK(b.try_take());
  CHECK_FALSE(b.try_take());
}

TEST_CASE("acquire paces real threads") {
  TokenBucket b(100.0, 1);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 5; ++j) b.acquire();
    });
  }
  for (auto& t : threads) t.join();
  // 20 tokens, 1 free, 19 at 10 ms each.
  CHECK(std::chrono::steady_clock::now() - start >= 180ms);
}

}  // namespace fed::kube

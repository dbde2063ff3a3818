#include "agent/etcdproxy/classifier/counter_rates.hpp"

#include <doctest/doctest.h>

using namespace fed::etcdproxy::classifier;
using namespace std::chrono_literals;

TEST_CASE("a counter's rate needs two observations and is per second") {
  CounterRates r;
  const auto t0 = CounterRates::Clock::time_point{} + 100s;
  CHECK_FALSE(r.rate("a", 100, t0));
  CHECK(r.rate("a", 300, t0 + 2s) == doctest::Approx(100));
  CHECK(r.rate("a", 300, t0 + 3s) == doctest::Approx(0));
  CHECK(r.rate("a", 350, t0 + 3500ms) == doctest::Approx(100));
  CHECK(r.size() == 1);
}

TEST_CASE("a counter that went down restarted: counted from zero, never negative") {
  CounterRates r;
  const auto t0 = CounterRates::Clock::time_point{} + 1s;
  (void)r.observe("c", 1000, t0);
  auto d = r.observe("c", 40, t0 + 2s);
  REQUIRE(d);
  CHECK(d->reset);
  CHECK(d->increase == doctest::Approx(40));
  CHECK(d->rate() == doctest::Approx(20));
  auto next = r.observe("c", 50, t0 + 3s);
  REQUIRE(next);
  CHECK_FALSE(next->reset);
  CHECK(next->rate() == doctest::Approx(10));
}

TEST_CASE("a time that does not advance gives no rate; keys are independent; clear forgets") {
  CounterRates r;
  const auto t0 = CounterRates::Clock::time_point{} + 1s;
  (void)r.observe("a", 1, t0);
  (void)r.observe("b", 5, t0);
  CHECK_FALSE(r.rate("a", 2, t0));
  CHECK_FALSE(r.rate("a", 2, t0 - 1s));
  CHECK(r.rate("b", 15, t0 + 1s) == doctest::Approx(10));
  r.clear();
  CHECK_FALSE(r.rate("b", 20, t0 + 2s));
}

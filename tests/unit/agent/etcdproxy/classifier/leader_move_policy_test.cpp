#include "agent/etcdproxy/classifier/leader_move_policy.hpp"

#include <doctest/doctest.h>

using namespace fed::etcdproxy::classifier;

namespace {

PolicyInput input(std::size_t leader, std::optional<int> cls) {
  PolicyInput in;
  in.leader = leader;
  in.leader_class = cls;
  for (std::size_t m = 0; m < 3; ++m) {
    if (m == leader) continue;
    in.followers.push_back({m, true, 0.010 + 0.001 * static_cast<double>(m)});
  }
  return in;
}

}  // namespace

TEST_CASE("classes 1 and 3 held for K periods move the leader to the lowest round trip") {
  LeaderMovePolicy p({.hold_periods = 3, .cooldown_periods = 5, .avoid_periods = 10});
  auto in = input(0, 1);
  in.followers[0].peer_rtt_seconds = 0.030;  // member 1 is slower than member 2
  CHECK_FALSE(p.on_period(in).target);
  in.leader_class = 3;  // delay + overload counts the same
  CHECK_FALSE(p.on_period(in).target);
  auto d = p.on_period(in);
  REQUIRE(d.target);
  CHECK(*d.target == 2);
  CHECK(p.moves() == 1);
}

TEST_CASE("classes 0 and 2 keep the leader and restart the count") {
  LeaderMovePolicy p({.hold_periods = 2, .cooldown_periods = 0, .avoid_periods = 0});
  for (int round = 0; round < 5; ++round) {
    CHECK_FALSE(p.on_period(input(0, 1)).target);
    CHECK_FALSE(p.on_period(input(0, round % 2 == 0 ? 0 : 2)).target);
  }
  CHECK_FALSE(p.on_period(input(0, 1)).target);
  CHECK_FALSE(p.on_period(input(0, std::nullopt)).target);  // a failed scrape breaks the run too
  CHECK_FALSE(p.on_period(input(0, 1)).target);
  CHECK(p.on_period(input(0, 1)).target);
}

TEST_CASE("a leader change restarts the count") {
  LeaderMovePolicy p({.hold_periods = 2, .cooldown_periods = 0, .avoid_periods = 0});
  CHECK_FALSE(p.on_period(input(0, 1)).target);
  CHECK_FALSE(p.on_period(input(1, 1)).target);
  CHECK(p.on_period(input(1, 1)).target);
}

TEST_CASE("no flapping: cooldown after a move, and the deposed member is avoided") {
  LeaderMovePolicy p({.hold_periods = 1, .cooldown_periods = 4, .avoid_periods = 20});
  auto first = p.on_period(input(0, 1));
  REQUIRE(first.target);
  CHECK(*first.target == 1);
  // The delay follows the new leader (it was the network, not the member): no move for the
  // cooldown, then a move that does not go back to member 0.
  int moves = 0;
  std::optional<std::size_t> second;
  for (int i = 0; i < 10; ++i) {
    auto d = p.on_period(input(1, 1));
    if (d.target) {
      ++moves;
      second = d.target;
      break;
    }
    CHECK(d.reason.find("cooling") != std::string::npos);
  }
  CHECK(moves == 1);
  REQUIRE(second);
  CHECK(*second == 2);
  CHECK(p.moves() == 2);
}

TEST_CASE("unhealthy followers are never targets; no target means keep") {
  LeaderMovePolicy p({.hold_periods = 1, .cooldown_periods = 0, .avoid_periods = 0});
  auto in = input(0, 1);
  in.followers[1].healthy = false;           // member 2
  in.followers[0].peer_rtt_seconds.reset();  // member 1: round trip unknown, still eligible
  auto d = p.on_period(in);
  REQUIRE(d.target);
  CHECK(*d.target == 1);
  in = input(1, 3);
  for (auto& f : in.followers) f.healthy = false;
  d = p.on_period(in);
  CHECK_FALSE(d.target);
  CHECK(d.reason.find("no healthy follower") != std::string::npos);
  PolicyInput none;
  CHECK_FALSE(p.on_period(none).target);
}

TEST_CASE("classes that call for a move") {
  CHECK_FALSE(calls_for_move(0));
  CHECK(calls_for_move(1));
  CHECK_FALSE(calls_for_move(2));
  CHECK(calls_for_move(3));
}

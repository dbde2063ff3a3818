#include "agent/etcdproxy/leader_health_monitor.hpp"

#include <doctest/doctest.h>

using namespace fed;
using namespace fed::etcdproxy;

namespace {

etcd::ClusterView three_members() {
  etcd::ClusterView v;
  v.members = {{"https://10.0.0.1:2379", 0xa, true, 5, {}},
               {"https://10.0.0.2:2379", 0xb, true, 5, {}},
               {"https://10.0.0.3:2379", 0xc, true, 5, {}}};
  v.leader = 0;
  return v;
}

}  // namespace

TEST_CASE("the policy sees every follower with the leader's round trip to it, by member id") {
  auto v = three_members();
  auto in = policy_input(v, 0, 1, {{0xb, 0.030}, {0xc, 0.004}, {0xa, 0.5}});
  CHECK(in.leader == 0u);
  CHECK(in.leader_class == 1);
  REQUIRE(in.followers.size() == 2);
  CHECK(in.followers[0].member == 1);
  CHECK(in.followers[0].peer_rtt_seconds == doctest::Approx(0.030));
  CHECK(in.followers[1].member == 2);
  CHECK(in.followers[1].peer_rtt_seconds == doctest::Approx(0.004));
  classifier::LeaderMovePolicy policy({.hold_periods = 1, .cooldown_periods = 0});
  auto d = policy.on_period(in);
  REQUIRE(d.target);
  CHECK(*d.target == 2);  // the lowest round trip
}

TEST_CASE("unhealthy or never-seen members are not targets; no leader means no followers list") {
  auto v = three_members();
  v.members[1].healthy = false;
  v.members[2].id = 0;  // never answered: MoveLeader could not name it
  auto in = policy_input(v, 0, 3, {});
  REQUIRE(in.followers.size() == 2);
  CHECK_FALSE(in.followers[0].healthy);
  CHECK_FALSE(in.followers[1].healthy);
  CHECK_FALSE(in.followers[1].peer_rtt_seconds);
  classifier::LeaderMovePolicy policy({.hold_periods = 1});
  CHECK_FALSE(policy.on_period(in).target);
  auto none = policy_input(v, std::nullopt, std::nullopt, {});
  CHECK(none.followers.size() == 3);
  CHECK_FALSE(policy.on_period(none).target);
}

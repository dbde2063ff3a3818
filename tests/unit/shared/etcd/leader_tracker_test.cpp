#include "shared/etcd/leader_tracker.hpp"

#include <doctest/doctest.h>

using namespace fed::etcd;

namespace {

StatusResponse status(std::uint64_t self, std::uint64_t leader, std::uint64_t term) {
  StatusResponse s;
  s.header.member_id = self;
  s.header.raft_term = term;
  s.leader = leader;
  s.raft_term = term;
  return s;
}

}  // namespace

TEST_CASE("the leader is learned from status polls once its member id is known") {
  LeaderTracker t(3);
  auto c = t.on_status(0, status(11, 22, 5));
  CHECK_FALSE(t.leader());  // member 22 has not answered yet: its index is unknown
  CHECK_FALSE(c.leader_changed);
  c = t.on_status(1, status(22, 22, 5));
  REQUIRE(t.leader());
  CHECK(*t.leader() == 1);
  CHECK(c.leader_changed);
  CHECK(t.term() == 5);
  CHECK(t.leader_changes() == 0);  // the first leader is not a change
}

TEST_CASE("a higher term wins; a stale member's lower-term claim is ignored") {
  LeaderTracker t(3);
  t.on_status(0, status(11, 11, 5));
  t.on_status(1, status(22, 11, 5));
  t.on_status(2, status(33, 11, 5));
  REQUIRE(*t.leader() == 0);
  auto c = t.on_status(1, status(22, 22, 6));
  CHECK(c.leader_changed);
  CHECK(*t.leader() == 1);
  CHECK(t.leader_changes() == 1);
  t.on_status(0, status(11, 11, 5));  // a partitioned old leader still believes in term 5
  CHECK(*t.leader() == 1);
}

TEST_CASE("a header with a higher term marks the leader stale and asks for a repoll") {
  LeaderTracker t(3);
  t.on_status(0, status(11, 11, 5));
  ResponseHeader h{1, 22, 100, 6};
  auto c = t.on_header(1, h);
  CHECK(c.repoll);
  CHECK(t.stale());
  CHECK(*t.leader() == 0);  // still routed to the old leader until a status names the new one
  t.on_status(2, status(33, 33, 6));
  CHECK(*t.leader() == 2);
  CHECK_FALSE(t.stale());
}

TEST_CASE("an election in progress (no leader at the new term) leaves the leader unknown") {
  LeaderTracker t(3);
  t.on_status(0, status(11, 11, 5));
  auto c = t.on_status(1, status(22, 0, 6));
  CHECK(c.repoll);
  CHECK_FALSE(t.leader());
  t.on_status(1, status(22, 22, 6));
  CHECK(*t.leader() == 1);
}

TEST_CASE("a failed leader is dropped at once and comes back when it answers") {
  LeaderTracker t(3);
  t.on_status(0, status(11, 11, 5));
  auto c = t.on_failure(0);
  CHECK(c.leader_changed);
  CHECK(c.repoll);
  CHECK_FALSE(t.leader());
  CHECK(t.members()[0].consecutive_failures == 1);
  t.on_status(0, status(11, 11, 5));
  CHECK(*t.leader() == 0);
  CHECK(t.leader_changes() == 0);  // same leader again
}

TEST_CASE("round-robin skips unhealthy members; leader falls back to round-robin") {
  LeaderTracker t(3);
  Picker p;
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 0);
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 1);
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 2);
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 0);
  t.on_failure(1);
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 2);
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 0);
  CHECK(p.pick(RoutingPolicy::RoundRobin, t) == 2);

  CHECK(p.pick(RoutingPolicy::Leader, t) != 1);  // unknown leader: round-robin over healthy
  t.on_status(2, status(33, 33, 7));
  for (int i = 0; i < 5; ++i) CHECK(p.pick(RoutingPolicy::Leader, t) == 2);
  CHECK(p.next_after(2, t) == 0);  // 1 is unhealthy
}

TEST_CASE("with every member down, picks keep cycling so someone is retried") {
  LeaderTracker t(2);
  t.on_failure(0);
  t.on_failure(1);
  Picker p;
  const auto a = p.pick(RoutingPolicy::Leader, t);
  const auto b = p.pick(RoutingPolicy::Leader, t);
  CHECK(a != b);
}

TEST_CASE("policy names") {
  CHECK(*parse_routing_policy("leader") == RoutingPolicy::Leader);
  CHECK(*parse_routing_policy("round-robin") == RoutingPolicy::RoundRobin);
  auto bad = parse_routing_policy("pick-leader");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("round-robin or leader") != std::string::npos);
}

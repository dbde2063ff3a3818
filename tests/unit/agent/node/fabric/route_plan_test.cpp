#include "agent/node/fabric/route_plan.hpp"

#include <doctest/doctest.h>

#include "agent/node/fabric/node_state_parse.hpp"
#include "tests/unit/agent/node/fabric/fake_kernel.hpp"
#include "tests/unit/agent/node/fabric/net_literals.hpp"
#include "tests/unit/agent/node/fabric/sample_state.hpp"

using namespace fed::fabric;
using fed::net::Cidr;
using fed::net::Ipv4;
using fed::os::PolicyRule;
using fed::os::Route;
using testing::cidr;
using testing::ip;

namespace {

void apply(testing::FakeRouteTable& t, const RouteChanges& ch) {
  for (const auto& r : ch.delete_rules) REQUIRE(t.delete_rule(r));
  for (const auto& r : ch.delete_routes) REQUIRE(t.delete_route(r));
  for (const auto& r : ch.replace_routes) REQUIRE(t.replace_route(r));
  for (const auto& r : ch.add_rules) REQUIRE(t.add_rule(r));
}

}  // namespace

TEST_CASE("a worker sends peer ranges to the gateway's overlay address") {
  auto st = parse_node_state(testing::sample_state("a-n2"));
  REQUIRE(st);
  auto want = desired_routes(*st, DatapathConfig{});
  CHECK(want.rules ==
        std::vector<PolicyRule>{{cidr("10.0.0.0/24"), ""}, {cidr("192.168.20.0/24"), ""}});
  CHECK(want.routes ==
        std::vector<Route>{{cidr("10.0.0.0/24"), ip("240.20.1.1"), "fed.vxlan"},
                           {cidr("192.168.20.0/24"), ip("240.20.1.1"), "fed.vxlan"}});
}

TEST_CASE("the gateway routes peers into the tunnel and tunnel traffic back over the overlay") {
  auto st = parse_node_state(testing::sample_state("a-n1"));
  REQUIRE(st);
  auto want = desired_routes(*st, DatapathConfig{});
  CHECK(want.rules.back() == PolicyRule{std::nullopt, "wan0"});
  CHECK(want.routes == std::vector<Route>{{cidr("10.0.0.0/24"), ip("203.0.113.2"), "wan0"},
                                          {cidr("192.168.20.0/24"), ip("203.0.113.2"), "wan0"},
                                          {cidr("10.1.0.128/25"), ip("240.20.1.2"), "fed.vxlan"}});
}

TEST_CASE("no peers: nothing to route") {
  auto st = parse_node_state(testing::sample_state("a-n2"));
  st->peers.clear();
  auto want = desired_routes(*st, DatapathConfig{});
  CHECK(want.routes.empty());
  CHECK(want.rules.empty());
}

TEST_CASE("planning converges in one apply, then plans nothing") {
  auto st = parse_node_state(testing::sample_state("a-n1"));
  auto want = desired_routes(*st, DatapathConfig{});
  testing::FakeRouteTable t;
  // Drift: a stale route, a wrong next hop, a duplicated rule and a stale rule.
  t.routes_ = {{cidr("10.99.0.0/16"), ip("203.0.113.9"), "wan0"},
               {cidr("10.0.0.0/24"), ip("203.0.113.7"), "wan0"}};
  t.rules_ = {
      {cidr("192.168.20.0/24"), ""}, {cidr("192.168.20.0/24"), ""}, {cidr("10.99.0.0/16"), ""}};
  auto ch = plan_routes(want, RouteSet{t.routes_, t.rules_});
  CHECK(ch.delete_routes == std::vector<Route>{{cidr("10.99.0.0/16"), ip("203.0.113.9"), "wan0"}});
  CHECK(ch.delete_rules.size() == 2);
  apply(t, ch);
  auto again = plan_routes(want, RouteSet{t.routes_, t.rules_});
  CHECK(again.empty());
  CHECK(t.routes_.size() == want.routes.size());
  CHECK(t.rules_.size() == want.rules.size());
}

TEST_CASE("planning against an empty desired set removes everything (uninstall)") {
  RouteSet observed{{{cidr("10.0.0.0/24"), ip("203.0.113.2"), "wan0"}},
                    {{cidr("10.0.0.0/24"), ""}, {std::nullopt, "wan0"}}};
  auto ch = plan_routes(RouteSet{}, observed);
  CHECK(ch.delete_routes.size() == 1);
  CHECK(ch.delete_rules.size() == 2);
  CHECK(ch.add_rules.empty());
  CHECK(ch.replace_routes.empty());
}

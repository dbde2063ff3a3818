#include "agent/node/fabric/direct_routing.hpp"

#include <doctest/doctest.h>

#include "agent/node/fabric/link_plan.hpp"
#include "agent/node/fabric/node_reconciler.hpp"
#include "agent/node/fabric/node_state_parse.hpp"
#include "agent/node/fabric/route_plan.hpp"
#include "tests/unit/agent/node/fabric/fake_kernel.hpp"
#include "tests/unit/agent/node/fabric/net_literals.hpp"
#include "tests/unit/agent/node/fabric/sample_state.hpp"

using namespace fed::fabric;
using fed::net::Cidr;
using fed::net::Ipv4;
using fed::os::ConnectedNetwork;
using fed::os::Route;
using testing::cidr;
using testing::ip;

namespace {

DatapathConfig direct_config() {
  DatapathConfig c;
  c.direct_routing = true;
  return c;
}

// The sample's nodes are 172.20.1.1 (gateway a-n1) and 172.20.1.2 (worker a-n2).
const std::vector<ConnectedNetwork> kLan = {{cidr("172.20.0.0/16"), "eth1"},
                                            {cidr("172.20.1.0/24"), "eth0"},
                                            {cidr("10.1.0.128/25"), "cni0"}};

}  // namespace

TEST_CASE("direct routing finds the overlay peers on a connected subnet, longest prefix first") {
  auto worker = *parse_node_state(testing::sample_state("a-n2"));
  CHECK(direct_nodes(worker, direct_config(), kLan) == DirectNodes{{"a-n1", "eth0"}});
  auto gateway = *parse_node_state(testing::sample_state("a-n1"));
  CHECK(direct_nodes(gateway, direct_config(), kLan) == DirectNodes{{"a-n2", "eth0"}});
  // Off by default, and a node off every connected subnet stays on the overlay.
  CHECK(direct_nodes(worker, DatapathConfig{}, kLan).empty());
  CHECK(direct_nodes(worker, direct_config(), {{cidr("172.21.0.0/16"), "eth0"}}).empty());
  // The overlay's own subnet never counts as the underlay.
  CHECK(direct_nodes(worker, direct_config(), {{cidr("172.20.1.0/24"), "fed.vxlan"}}).empty());
}

TEST_CASE("with direct routing, routes go to node IPs both ways and no overlay is made") {
  auto worker = *parse_node_state(testing::sample_state("a-n2"));
  auto cfg = direct_config();
  auto direct = direct_nodes(worker, cfg, kLan);
  CHECK(desired_routes(worker, cfg, direct).routes ==
        std::vector<Route>{{cidr("10.0.0.0/24"), ip("172.20.1.1"), "eth0"},
                           {cidr("192.168.20.0/24"), ip("172.20.1.1"), "eth0"}});
  CHECK_FALSE(desired_overlay(worker, cfg, direct).device);

  auto gateway = *parse_node_state(testing::sample_state("a-n1"));
  auto back = desired_routes(gateway, cfg, direct_nodes(gateway, cfg, kLan));
  CHECK(back.routes.back() == Route{cidr("10.1.0.128/25"), ip("172.20.1.2"), "eth0"});
  CHECK_FALSE(desired_overlay(gateway, cfg, direct_nodes(gateway, cfg, kLan)).device);
}

TEST_CASE("turning direct routing on removes the overlay device and moves the routes") {
  struct StringSource final : NodeStateSource {
    fed::Result<NodeNetworkState> load() override { return parse_node_state(text); }
    std::string text;
  } src;
  src.text = testing::sample_state("a-n2");
  testing::FakeRouteTable routes;
  testing::FakeLinkManager links;
  testing::FakeNatTable nat;
  testing::FakeDnatTable dnat;
  links.connected = kLan;
  DatapathDeps deps{routes, links, nat, dnat};
  NodeReconciler overlay(deps, src, DatapathConfig{}, std::chrono::seconds(30), nullptr);
  REQUIRE(overlay.reconcile({"", "a-n2"}));
  REQUIRE(links.vxlan_);
  CHECK(routes.routes_.front().dev == "fed.vxlan");

  NodeReconciler direct(deps, src, direct_config(), std::chrono::seconds(30), nullptr);
  REQUIRE(direct.reconcile({"", "a-n2"}));
  CHECK_FALSE(links.vxlan_);
  CHECK(routes.routes_.size() == 2);
  for (const auto& r : routes.routes_) CHECK(r.dev == "eth0");
  const int writes = routes.writes + links.writes + nat.commits;
  REQUIRE(direct.reconcile({"", "a-n2"}));
  CHECK(routes.writes + links.writes + nat.commits == writes);
}

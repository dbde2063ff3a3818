#include "agent/node/fabric/node_reconciler.hpp"

#include <doctest/doctest.h>

#include "agent/node/fabric/node_state_parse.hpp"
#include "agent/node/fabric/uninstall.hpp"
#include "shared/metrics/registry.hpp"
#include "tests/unit/agent/node/fabric/fake_kernel.hpp"
#include "tests/unit/agent/node/fabric/sample_state.hpp"

using namespace fed::fabric;

namespace {

class StringSource final : public NodeStateSource {
 public:
  fed::Result<NodeNetworkState> load() override { return parse_node_state(text); }
  std::string text;
};

struct Kernel {
  testing::FakeRouteTable routes;
  testing::FakeLinkManager links;
  testing::FakeNatTable nat;
  testing::FakeDnatTable dnat;
  DatapathDeps deps() { return DatapathDeps{routes, links, nat, dnat}; }
  int writes() const { return routes.writes + links.writes + nat.commits + dnat.commits; }
};

}  // namespace

TEST_CASE("a pass converges the gateway; the next pass writes nothing and asks for a resync") {
  Kernel k;
  StringSource src;
  src.text = testing::sample_state("a-n1");
  fed::metrics::Registry registry;
  DatapathMetrics metrics(registry);
  NodeReconciler r(k.deps(), src, DatapathConfig{}, std::chrono::seconds(30), &metrics);
  auto first = r.reconcile({"", "a-n1"});
  REQUIRE(first);
  CHECK(first->after == std::chrono::seconds(30));
  CHECK(k.routes.routes_.size() == 3);
  CHECK(k.links.vxlan_.has_value());
  CHECK(k.nat.chains.size() == 6);  // four built-in, FED-PREROUTING, FED-POSTROUTING
  CHECK(k.dnat.state.maps.size() == 1);
  int writes = k.writes();
  REQUIRE(r.reconcile({"", "a-n1"}));
  CHECK(k.writes() == writes);
  auto text = registry.render();
  CHECK(text.find("fed_datapath_routes_owned 3") != std::string::npos);
  CHECK(text.find("fed_datapath_reconcile_duration_seconds_count 2") != std::string::npos);
  CHECK(metrics.last_error().empty());
}

TEST_CASE("an invalid state is a terminal error and touches nothing") {
  Kernel k;
  StringSource src;
  src.text = testing::sample_state("a-n1");
  fed::metrics::Registry registry;
  DatapathMetrics metrics(registry);
  NodeReconciler r(k.deps(), src, DatapathConfig{}, std::chrono::seconds(30), &metrics);
  REQUIRE(r.reconcile({"", "a-n1"}));
  auto before = k.nat.chains;
  int writes = k.writes();
  src.text +=
      "  - clusterID: c\n    podCIDR: 10.0.0.0/16\n    externalCIDR: 10.50.0.0/24\n"
      "    tunnel: {interface: wan0, endpoint: 203.0.113.3}\n";
  auto bad = r.reconcile({"", "a-n1"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == fed::ErrorCode::Invalid);
  CHECK(k.writes() == writes);
  CHECK(k.nat.chains == before);
  CHECK(metrics.last_error().find("overlaps") != std::string::npos);
  CHECK(registry.render().find("fed_datapath_reconcile_errors_total{code=\"Invalid\"} 1") !=
        std::string::npos);
}

TEST_CASE("a failing part does not stop the others; the error says which") {
  Kernel k;
  StringSource src;
  src.text = testing::sample_state("a-n1");
  k.links.vxlan_ = fed::os::VxlanState{};  // a foreign device under our name
  k.links.vxlan_->owned = false;
  NodeReconciler r(k.deps(), src, DatapathConfig{}, std::chrono::seconds(30), nullptr);
  auto res = r.reconcile({"", "a-n1"});
  REQUIRE_FALSE(res);
  CHECK(res.error().code() == fed::ErrorCode::Conflict);
  CHECK(res.error().message().find("not created by fed-agent") != std::string::npos);
  CHECK(k.nat.chains.size() == 6);
  CHECK(k.routes.rules_.size() == 3);
}

TEST_CASE("uninstall removes everything marked, keeps the rest, and is idempotent") {
  Kernel k;
  StringSource src;
  src.text = testing::sample_state("a-n1");
  fed::os::NatRule foreign;
  foreign.action = fed::os::NatAction::Return;
  k.nat.chains["POSTROUTING"] = {foreign};
  NodeReconciler r(k.deps(), src, DatapathConfig{}, std::chrono::seconds(30), nullptr);
  REQUIRE(r.reconcile({"", "a-n1"}));
  REQUIRE(uninstall_datapath(k.deps(), DatapathConfig{}));
  CHECK(k.routes.routes_.empty());
  CHECK(k.routes.rules_.empty());
  CHECK_FALSE(k.links.vxlan_);
  CHECK(k.nat.chains.size() == 4);
  CHECK(k.nat.chains["POSTROUTING"] == std::vector<fed::os::NatRule>{foreign});
  CHECK_FALSE(k.dnat.state.table);
  int writes = k.writes();
  REQUIRE(uninstall_datapath(k.deps(), DatapathConfig{}));
  CHECK(k.writes() == writes);
}

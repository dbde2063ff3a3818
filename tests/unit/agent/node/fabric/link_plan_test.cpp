#include "agent/node/fabric/link_plan.hpp"

#include <doctest/doctest.h>

#include "agent/node/fabric/node_state_parse.hpp"
#include "tests/unit/agent/node/fabric/fake_kernel.hpp"
#include "tests/unit/agent/node/fabric/sample_state.hpp"

using namespace fed::fabric;

TEST_CASE("a worker's overlay knows only the gateway; the gateway knows every node") {
  DatapathConfig cfg;
  auto worker = desired_overlay(*parse_node_state(testing::sample_state("a-n2")), cfg);
  REQUIRE(worker.device);
  CHECK(worker.device->local.str() == "172.20.1.2");
  CHECK(worker.device->address.str() == "240.20.1.2");
  CHECK(worker.device->name == "fed.vxlan");
  REQUIRE(worker.fdb.size() == 1);
  CHECK(worker.fdb[0].remote.str() == "172.20.1.1");
  CHECK(worker.neighbours[0].ip.str() == "240.20.1.1");
  auto gw = desired_overlay(*parse_node_state(testing::sample_state("a-n1")), cfg);
  REQUIRE(gw.fdb.size() == 1);
  CHECK(gw.fdb[0].remote.str() == "172.20.1.2");
}

TEST_CASE("overlay plans: create, converge, repair, refuse foreign, remove") {
  DatapathConfig cfg;
  auto want = desired_overlay(*parse_node_state(testing::sample_state("a-n2")), cfg);
  auto create = plan_links(want, std::nullopt, cfg);
  REQUIRE(create);
  CHECK(create->create_device);
  CHECK(create->add_fdb.size() == 1);

  fed::os::VxlanState have{*want.device, true, true, want.fdb, want.neighbours};
  CHECK(plan_links(want, have, cfg)->empty());

  have.fdb.push_back(fed::os::FdbEntry{want.fdb[0].mac, *fed::net::Ipv4::parse("10.9.9.9")});
  have.neighbours.clear();
  auto repair = plan_links(want, have, cfg);
  CHECK(repair->delete_fdb.size() == 1);
  CHECK(repair->add_neighbours.size() == 1);
  CHECK_FALSE(repair->create_device);

  have.device.vni = 7;
  auto recreate = plan_links(want, have, cfg);
  CHECK(recreate->delete_device);
  CHECK(recreate->create_device);

  have.owned = false;
  auto foreign = plan_links(want, have, cfg);
  REQUIRE_FALSE(foreign);
  CHECK(foreign.error().code() == fed::ErrorCode::Conflict);

  have.owned = true;
  CHECK(plan_links(DesiredOverlay{}, have, cfg)->delete_device);
  CHECK(plan_links(DesiredOverlay{}, std::nullopt, cfg)->empty());
}

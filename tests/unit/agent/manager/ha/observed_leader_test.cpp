// What a manager that does not lead publishes on its host: the leader it observes, with the
// leader's host from its identity, "None" when nobody leads, nothing when the leader is on its
// own host (that one publishes itself) unless its own "None" may stand over the leader's.

#include <doctest/doctest.h>

#include "agent/manager/ha/observed_leader_publisher.hpp"

using namespace fed::ha;

TEST_CASE("the observed leader as a follower host publishes it") {
  CHECK(host_of_identity("c1/fed-manager-7c9f-x2_1") == "c1");
  CHECK(host_of_identity("fed-manager_1") == "");

  const LeaderRecord record{"c1/fed-manager-7c9f-x2_1", 4, "2026-11-26T22:00:00Z"};
  auto on_c2 = observed_announcement(record, "c2");
  REQUIRE(on_c2);
  CHECK(on_c2->holder == "c1/fed-manager-7c9f-x2_1");
  CHECK(on_c2->host == "c1");
  CHECK(on_c2->epoch == 4);
  CHECK(on_c2->since == "2026-11-26T22:00:00Z");
  CHECK_FALSE(on_c2->failover);  // only the leader knows it
  CHECK(leader_configmap(*on_c2)["data"]["host"] == "c1");
  // c2 is a follower: the policy refuses the federation's writes there, naming c1.
  CHECK(leader_configmap(*on_c2)["data"]["role"] == "follower");

  CHECK_FALSE(observed_announcement(record, "c1"));  // the leader's host: it publishes itself
  // ... unless this manager's "None" may have landed after the leader's own ConfigMap.
  auto restored = observed_announcement(record, "c1", true);
  REQUIRE(restored);
  CHECK(leader_configmap(*restored)["data"]["holder"] == "c1/fed-manager-7c9f-x2_1");
  CHECK(leader_configmap(*restored)["data"]["role"] == "leader");
  CHECK(leader_configmap(*restored)["data"]["epoch"] == "4");

  auto none = observed_announcement(std::nullopt, "c2");
  REQUIRE(none);
  CHECK(leader_configmap(*none)["data"]["holder"] == "None");
  CHECK(leader_configmap(*none)["data"]["host"] == "");
  CHECK(leader_configmap(*none)["data"]["role"] == "follower");
}

// Which members --clusters selects from the host's FederatedClusters, and the status a
// FeatureConfig run records on the host.

#include <doctest/doctest.h>

#include "plugin/reconfigure/feature_config_record.hpp"
#include "plugin/reconfigure/reconfigure_targets.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

json cluster(const std::string& name, const std::string& role, json labels) {
  return {{"metadata", {{"name", name}}},
          {"spec", {{"role", role}, {"clusterLabels", std::move(labels)}}}};
}

fed::kube::LabelSelector selector(std::string_view text) {
  auto s = fed::kube::LabelSelector::parse(text);
  REQUIRE(s);
  return *s;
}

NodeResult node(const std::string& name, NodeOutcome outcome, std::string message = "") {
  NodeResult n;
  n.node = name;
  n.outcome = outcome;
  n.message = std::move(message);
  return n;
}

}  // namespace

TEST_CASE("--clusters matches the members' cluster labels, never the host, sorted") {
  const json list = {
      {"items",
       {cluster("c3", "member", {{"region", "eu"}, {"tier", "gold"}}),
        cluster("c1", "host", {{"region", "eu"}}), cluster("c2", "member", {{"region", "eu"}}),
        cluster("c4", "", {{"region", "us"}})}}};
  CHECK(select_members(list, selector("region=eu")) == std::vector<std::string>{"c2", "c3"});
  CHECK(select_members(list, selector("")) == std::vector<std::string>{"c2", "c3", "c4"});
  CHECK(select_members(list, selector("tier in (gold),region!=us")) ==
        std::vector<std::string>{"c3"});
  CHECK(select_members(list, selector("!tier")) == std::vector<std::string>{"c2", "c4"});
  CHECK(select_members(list, selector("region=ap")).empty());
  CHECK(select_members(json::object(), selector("")).empty());
}

TEST_CASE("a FeatureConfig's status: Applied, RolledBack or Failed, per member and node") {
  ClusterResult good{
      "c2",
      {node("node1", NodeOutcome::Applied), node("node2", NodeOutcome::AlreadyApplied)},
      {},
      std::nullopt};
  ClusterResult back{"c3",
                     {node("node1", NodeOutcome::RolledBack, "kubelet did not come back"),
                      node("node2", NodeOutcome::Skipped)},
                     {},
                     std::nullopt};
  ClusterResult down{"c4", {}, {}, fed::Error(fed::ErrorCode::Unavailable, "c4 unreachable")};

  const json all = feature_config_status({good}, 3, json::object(), "2026-11-25T10:00:00Z");
  CHECK(all["phase"] == "Applied");
  CHECK(all["appliedClusters"] == 1);
  CHECK(all["observedGeneration"] == 3);
  CHECK(all["clusters"][0]["phase"] == "Applied");
  CHECK(all["clusters"][0]["nodes"][1]["phase"] == "AlreadyApplied");
  CHECK(all["conditions"][0]["type"] == "Applied");
  CHECK(all["conditions"][0]["status"] == "True");

  const json rolled = feature_config_status({good, back}, 4, all, "2026-11-25T11:00:00Z");
  CHECK(rolled["phase"] == "RolledBack");
  CHECK(rolled["appliedClusters"] == 1);
  CHECK(rolled["clusters"][1]["phase"] == "RolledBack");
  CHECK(rolled["clusters"][1]["message"] == "node1: kubelet did not come back");
  CHECK(rolled["conditions"][0]["status"] == "False");
  CHECK(rolled["conditions"][0]["lastTransitionTime"] == "2026-11-25T11:00:00Z");
  CHECK(rolled["conditions"][0]["message"].get<std::string>().find("1 of 2") != std::string::npos);

  const json failed = feature_config_status({back, down}, 4, rolled, "2026-11-25T12:00:00Z");
  CHECK(failed["phase"] == "Failed");
  CHECK(failed["clusters"][1]["message"] == "c4 unreachable");
  // The condition's status did not change: its transition time stays.
  CHECK(failed["conditions"][0]["lastTransitionTime"] == "2026-11-25T11:00:00Z");
}

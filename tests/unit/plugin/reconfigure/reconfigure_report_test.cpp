// How a finished agent pod becomes a node result, the -o json documents of the rollout and of
// `reconfigure status`, and the exit status.

#include "plugin/reconfigure/reconfigure_report.hpp"

#include <doctest/doctest.h>

#include "plugin/cli/exit_codes.hpp"

using namespace fed::plugin;
using nlohmann::json;

namespace {

json finished_pod(int exit_code, std::string message = "") {
  return {
      {"status",
       {{"phase", exit_code == 0 ? "Succeeded" : "Failed"},
        {"containerStatuses",
         json::array(
             {{{"state", {{"terminated", {{"exitCode", exit_code}, {"message", message}}}}}}})}}}};
}

ReconfigurePlan plan() {
  ReconfigureOptions o;
  o.set = {"cpuManagerPolicy=static", "reservedSystemCPUs=0"};
  return *make_plan(o, "");
}

}  // namespace

TEST_CASE("the agent's exit code, log and the Node's phase give the node's result") {
  auto applied = node_result_from_pod(
      "node1", finished_pod(0), "some log\nnode1: applied {\"cpuManagerPolicy\":\"static\"}\n",
      "Succeeded", "");
  CHECK(applied.outcome == NodeOutcome::Applied);
  CHECK(applied.exit_code == 0);
  CHECK(applied.phase == "Succeeded");

  auto already = node_result_from_pod("node1", finished_pod(0), "node1: already applied {}\n",
                                      "Succeeded", "");
  CHECK(already.outcome == NodeOutcome::AlreadyApplied);

  auto rolled = node_result_from_pod(
      "node2", finished_pod(1), "node2: rolled back {...}: not healthy within 25s\n", "RolledBack",
      "not healthy within 25s: kubelet /healthz: connection refused");
  CHECK(rolled.outcome == NodeOutcome::RolledBack);
  CHECK(rolled.message == "not healthy within 25s: kubelet /healthz: connection refused");

  auto refused = node_result_from_pod(
      "node1", finished_pod(2, "tail of the log"),
      "fed-agent reconfigure-node: node node1: cpuManagerPolicy=static needs a CPU reservation\n",
      "", "");
  CHECK(refused.outcome == NodeOutcome::Failed);
  CHECK(refused.exit_code == 2);
  CHECK(refused.message == "node node1: cpuManagerPolicy=static needs a CPU reservation");

  auto no_log = node_result_from_pod("node1", finished_pod(3, "kubelet unhealthy\n"), "", "", "");
  CHECK(no_log.message == "kubelet unhealthy");

  auto no_status =
      node_result_from_pod("node1", json{{"status", {{"phase", "Failed"}}}}, "", "", "");
  CHECK(no_status.outcome == NodeOutcome::Failed);
  CHECK(no_status.exit_code == -1);
}

TEST_CASE("a cluster feature is reported per cluster and fails the run when it failed") {
  ReconfigurePlan with_feature = plan();
  with_feature.features = {"podPreset"};
  ClusterResult ready{"c2", {}, {}, std::nullopt};
  ready.features.push_back(FeatureResult{"podPreset", NodeOutcome::Applied, "", 2.94});
  ClusterResult broken{"c3", {}, {}, std::nullopt};
  broken.features.push_back(
      FeatureResult{"podPreset", NodeOutcome::Failed, "not Ready within 120s: no CA bundle", 120});
  const json doc = rollout_json(with_feature, {ready, broken});
  CHECK(doc["desired"]["podPreset"] == true);
  CHECK(doc["clusters"][0]["features"][0] ==
        json{{"name", "podPreset"}, {"result", "Applied"}, {"message", ""}, {"seconds", 2.9}});
  CHECK(doc["clusters"][0]["succeeded"] == true);
  CHECK(doc["clusters"][1]["succeeded"] == false);
  const Table t = rollout_table({ready, broken});
  CHECK(t.rows[0][1] == "feature podPreset");
  auto status = rollout_status({ready, broken});
  REQUIRE_FALSE(status);
  CHECK(status.error().message().find("c3 feature podPreset Failed: not Ready") !=
        std::string::npos);
  CHECK(rollout_status({ready}));
}

TEST_CASE("-o json: per cluster and node, and the exit status") {
  ClusterResult c2{"c2", {}, {}, std::nullopt};
  c2.nodes.push_back(NodeResult{"node1", NodeOutcome::Applied, "Succeeded", 0, "", 12.34});
  c2.nodes.push_back(NodeResult{"node2", NodeOutcome::RolledBack, "RolledBack", 1, "bad", 30});
  c2.nodes.push_back(NodeResult{"node3", NodeOutcome::Skipped, "", -1, "not started", 0});
  ClusterResult c3{"c3", {}, {}, std::nullopt};
  c3.nodes.push_back(NodeResult{"node1", NodeOutcome::AlreadyApplied, "Succeeded", 0, "", 1});

  const json doc = rollout_json(plan(), {c2, c3});
  CHECK(doc["kind"] == "ReconfigureResult");
  CHECK(doc["desired"] == json{{"cpuManagerPolicy", "static"}, {"reservedSystemCPUs", "0"}});
  CHECK(doc["succeeded"] == false);
  CHECK(doc["clusters"][0]["context"] == "c2");
  CHECK(doc["clusters"][0]["succeeded"] == false);
  CHECK(doc["clusters"][0]["nodes"][0] == json{{"name", "node1"},
                                               {"result", "Applied"},
                                               {"phase", "Succeeded"},
                                               {"exitCode", 0},
                                               {"message", ""},
                                               {"seconds", 12.3}});
  CHECK(doc["clusters"][0]["nodes"][1]["result"] == "RolledBack");
  CHECK(doc["clusters"][0]["nodes"][2]["result"] == "Skipped");
  CHECK(doc["clusters"][1]["succeeded"] == true);
  CHECK_FALSE(doc["clusters"][1].contains("error"));

  auto status = rollout_status({c2, c3});
  REQUIRE_FALSE(status);
  CHECK(exit_code_for(status.error()) == ExitCode::Failure);
  CHECK(status.error().message().find("c2/node2 RolledBack") != std::string::npos);
  CHECK(rollout_status({c3}));

  ClusterResult down{"c9", {}, {}, fed::Error(fed::ErrorCode::Unavailable, "connection refused")};
  auto unreachable = rollout_status({c3, down});
  REQUIRE_FALSE(unreachable);
  CHECK(exit_code_for(unreachable.error()) == ExitCode::Unavailable);
  CHECK(rollout_json(plan(), {down})["clusters"][0]["error"] == "connection refused");

  const Table t = rollout_table({c2});
  CHECK(t.headers == std::vector<std::string>{"CONTEXT", "NODE", "RESULT", "SECONDS", "MESSAGE"});
  CHECK(t.rows[0] == std::vector<std::string>{"c2", "node1", "Applied", "12", "-"});
}

TEST_CASE("status: desired from the annotations, observed from /configz") {
  const json node = {{"metadata",
                      {{"name", "node1"},
                       {"annotations",
                        {{"kubectl-fed.io/reconfigure-phase", "Succeeded"},
                         {"kubectl-fed.io/reconfigure-desired",
                          R"({"cpuManagerPolicy":"static","reservedSystemCPUs":"0"})"},
                         {"kubectl-fed.io/reconfigure-original",
                          R"({"cpuManagerPolicy":"none","reservedSystemCPUs":null})"},
                         {"kubectl-fed.io/reconfigure-message", ""},
                         {"kubectl-fed.io/reconfigure-updated", "2026-11-24T15:00:00Z"}}}}}};
  const json configz = {
      {"cpuManagerPolicy", "static"}, {"reservedSystemCPUs", "0"}, {"maxPods", 110}};
  NodeStatus s = node_status(node, configz, "");
  CHECK(s.node == "node1");
  CHECK(s.phase == "Succeeded");
  CHECK(s.desired == json{{"cpuManagerPolicy", "static"}, {"reservedSystemCPUs", "0"}});
  CHECK(s.observed == s.desired);
  CHECK(s.in_sync);
  CHECK(s.updated == "2026-11-24T15:00:00Z");

  NodeStatus drifted = node_status(node, json{{"cpuManagerPolicy", "none"}}, "");
  CHECK_FALSE(drifted.in_sync);
  CHECK(drifted.observed == json{{"cpuManagerPolicy", "none"}, {"reservedSystemCPUs", nullptr}});

  NodeStatus unread = node_status(node, std::nullopt, "kubelet /configz: 503");
  CHECK(unread.error == "kubelet /configz: 503");
  CHECK(unread.observed.is_null());

  NodeStatus never = node_status(json{{"metadata", {{"name", "node2"}}}}, configz, "");
  CHECK(never.phase.empty());
  CHECK(never.desired.is_null());

  const json doc = status_json({ClusterStatus{"c2", {s, never}, {}, std::nullopt}});
  CHECK(doc["kind"] == "ReconfigureStatus");
  CHECK(doc["clusters"][0]["nodes"][0]["phase"] == "Succeeded");
  CHECK(doc["clusters"][0]["nodes"][0]["inSync"] == true);
  CHECK(doc["clusters"][0]["nodes"][1]["phase"] == "");
  CHECK(doc["clusters"][0]["nodes"][1]["cni"].is_null());
  const Table t = status_table({ClusterStatus{"c2", {s, never}, {}, std::nullopt}});
  CHECK(t.rows[1] == std::vector<std::string>{"c2", "node2", "-", "-", "-", "-", "-", "-"});
}

TEST_CASE("status: a node's CNI switch from its annotations, never reconfigured otherwise") {
  const json node = {
      {"metadata",
       {{"name", "node1"},
        {"annotations",
         {{"kubectl-fed.io/cni-network", "fedtb-alt"},
          {"kubectl-fed.io/cni-probe", "a new pod got 10.250.0.4 from network fedtb-alt"}}}}}};
  NodeStatus s = node_status(node, json::object(), "");
  CHECK(s.phase.empty());
  CHECK(s.cni_network == "fedtb-alt");
  const json doc = status_json({ClusterStatus{"c2", {s}, {}, std::nullopt}});
  CHECK(doc["clusters"][0]["nodes"][0]["cni"]["network"] == "fedtb-alt");
  CHECK(doc["clusters"][0]["nodes"][0]["cni"]["probe"] ==
        "a new pod got 10.250.0.4 from network fedtb-alt");
  const Table t = status_table({ClusterStatus{"c2", {s}, {}, std::nullopt}});
  CHECK(t.rows[0][6] == "fedtb-alt");
}

TEST_CASE("a failed node is uncordoned only when its kubelet config was never written") {
  // The agent stopped before writing (config not found: no progress, or only Started).
  auto early = node_result_from_pod(
      "node1", finished_pod(1),
      "reading the kubelet config: /var/lib/kubelet/config.yaml: No such file\n", "", "");
  REQUIRE(early.outcome == NodeOutcome::Failed);
  CHECK(failed_untouched(early, false));
  early.phase = "Started";
  CHECK(failed_untouched(early, false));
  // Written, or even the rollback failed: it stays cordoned.
  auto written = early;
  written.phase = "ConfigWritten";
  CHECK_FALSE(failed_untouched(written, false));
  written.phase = "Failed";
  CHECK_FALSE(failed_untouched(written, false));
  // A CNI switch records no kubelet phase: a failed one is never taken as untouched.
  CHECK_FALSE(failed_untouched(early, true));
  // Not failed at all: the question does not arise.
  auto applied =
      node_result_from_pod("node1", finished_pod(0), "node1: applied {}\n", "Succeeded", "");
  CHECK_FALSE(failed_untouched(applied, false));
}

// join --wait's data-path proof, the pure parts: where the member must dial the host pod, what
// source the host must see, and the probe pods' shape (unprivileged, no token, ours).

#include "plugin/membership/path_proof.hpp"
#include "plugin/membership/join_diagnosis.hpp"

#include <doctest/doctest.h>

using namespace fed::plugin;

TEST_CASE("addresses move between a network and its remap as NETMAP moves them") {
  CHECK(translate_address("10.241.1.4", "10.241.0.0/23", "None").value() == "10.241.1.4");
  CHECK(translate_address("10.241.1.4", "10.241.0.0/23", "").value() == "10.241.1.4");
  // Same PodCIDR everywhere: the member sees the host's pods in its remap.
  CHECK(translate_address("10.244.1.4", "10.244.0.0/23", "10.0.2.0/23").value() == "10.0.3.4");
  CHECK(translate_address("10.244.0.2", "10.244.0.0/23", "10.0.6.0/23").value() == "10.0.6.2");
  // Outside the network, or a remap of another length: refused, not guessed.
  CHECK_FALSE(translate_address("10.245.0.1", "10.244.0.0/23", "10.0.2.0/23"));
  CHECK_FALSE(translate_address("10.244.0.1", "10.244.0.0/23", "10.0.2.0/24"));
  CHECK_FALSE(translate_address("not-an-ip", "10.244.0.0/23", "10.0.2.0/23"));
}

TEST_CASE(
    "probe pods run fed-agent probe unprivileged, without a service-account token, labelled as "
    "ours") {
  const auto pod = probe_pod("fed-probe-c2", "fed.local/fed-agent:dev",
                             {"--listen", "7946", "--id", "c1", "--for", "60s"}, "0123abcd");
  CHECK(pod["metadata"]["generateName"] == "fed-probe-c2-");
  CHECK(pod["metadata"]["namespace"] == "kubectl-fed-system");
  CHECK(pod["metadata"]["labels"]["app.kubernetes.io/part-of"] == "kubectl-fed");
  CHECK(pod["spec"]["restartPolicy"] == "Never");
  CHECK(pod["spec"]["automountServiceAccountToken"] == false);
  const auto& c = pod["spec"]["containers"][0];
  CHECK(c["image"] == "fed.local/fed-agent:dev");
  CHECK(c["command"] == nlohmann::json::array({"/usr/local/bin/fed-agent", "probe"}));
  CHECK(c["args"][1] == "7946");
  CHECK(c["securityContext"]["runAsNonRoot"] == true);
  CHECK(c["securityContext"]["allowPrivilegeEscalation"] == false);
  CHECK(c["securityContext"]["capabilities"]["drop"] == nlohmann::json::array({"ALL"}));
  CHECK_FALSE(c.contains("ports"));
  // The probe's shared secret rides in the environment, not on the command line (ps shows it).
  CHECK(c["env"] == nlohmann::json::array({{{"name", "FED_PROBE_TOKEN"}, {"value", "0123abcd"}}}));
}

namespace {

using nlohmann::json;

json agent_pod(const std::string& node, bool ready) {
  json pod = json::object();
  pod["metadata"]["name"] = "fed-agent-" + node;
  pod["spec"]["nodeName"] = node;
  pod["status"]["conditions"] =
      json::array({json{{"type", "Ready"}, {"status", ready ? "True" : "False"}}});
  return pod;
}

json node_event(const std::string& node, const std::string& type, const std::string& reason,
                const std::string& at) {
  json e = json::object();
  e["involvedObject"] = json{{"kind", "Node"}, {"name", node}};
  e["source"]["component"] = "fed-agent-node";
  e["type"] = type;
  e["reason"] = reason;
  e["message"] = "node " + node + " datapath: replace route 10.0.2.0/23: Network is down";
  e["lastTimestamp"] = at;
  return e;
}

json list_of(std::vector<json> items) {
  json l = json::object();
  l["items"] = json(std::move(items));
  return l;
}

}  // namespace

TEST_CASE("a failed probe names the path nodes whose agent has not converged or reports failure") {
  const std::vector<PathNode> path{
      {"c2", "node2"}, {"c2", "node1"}, {"c1", "node1"}, {"c1", "node1"}, {"c1", "node2"}};
  std::map<std::string, json> pods{
      {"c1", list_of({agent_pod("node1", true), agent_pod("node2", true)})},
      {"c2", list_of({agent_pod("node1", true), agent_pod("node2", false)})}};
  std::map<std::string, json> events{
      {"c1", list_of({node_event("node1", "Warning", "DatapathFailed", "2026-11-26T03:00:05Z"),
                      node_event("node2", "Warning", "DatapathFailed", "2026-11-26T03:00:01Z"),
                      node_event("node2", "Normal", "DatapathConverged", "2026-11-26T03:00:09Z")})},
      // Before the probe started: c2/node1's old failure is not this probe's.
      {"c2", list_of({node_event("node2", "Warning", "DatapathInvalid", "2026-11-26T03:00:02Z"),
                      node_event("node1", "Warning", "DatapathFailed", "2026-11-26T02:00:00Z")})}};
  const auto found = agent_findings(path, pods, events, "2026-11-26T03:00:00Z");
  REQUIRE(found.size() == 2);
  CHECK(found[0] ==
        "c2/node2: fed-agent fed-agent-node2 not Ready, its datapath has not converged "
        "(DatapathInvalid: node node2 datapath: replace route 10.0.2.0/23: Network is down)");
  CHECK(found[1] ==
        "c1/node1: DatapathFailed: node node1 datapath: replace route 10.0.2.0/23: Network is "
        "down");

  // Not Ready since before the probe, its agent backing off: the failure it recorded after its
  // start and before the probe is still the reason (the e2e check once missed it).
  pods["c2"]["items"][1]["status"]["startTime"] = "2026-11-26T02:30:00Z";
  events["c2"] =
      list_of({node_event("node2", "Warning", "DatapathFailed", "2026-11-26T02:45:00Z"),
               node_event("node2", "Warning", "DatapathFailed", "2026-11-26T02:10:00Z")});
  const auto backing_off = agent_findings({{"c2", "node2"}}, pods, events, "2026-11-26T03:00:00Z");
  REQUIRE(backing_off.size() == 1);
  CHECK(backing_off[0].find("not Ready, its datapath has not converged (DatapathFailed: ") !=
        std::string::npos);
  // What it recorded before it started (an earlier pod's) is not its reason.
  events["c2"] =
      list_of({node_event("node2", "Warning", "DatapathFailed", "2026-11-26T02:10:00Z")});
  CHECK(agent_findings({{"c2", "node2"}}, pods, events, "2026-11-26T03:00:00Z")[0] ==
        "c2/node2: fed-agent fed-agent-node2 not Ready, its datapath has not converged");

  pods["c1"]["items"].erase(1);
  const auto missing = agent_findings({{"c1", "node2"}}, pods, {}, "2026-11-26T03:00:00Z");
  REQUIRE(missing.size() == 1);
  CHECK(missing[0] == "c1/node2: no fed-agent pod (is the DaemonSet kept off the node?)");
  CHECK(agent_findings({{"c1", "node1"}}, pods, {}, "").empty());
}

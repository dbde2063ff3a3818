#include "plugin/membership/join_diagnosis.hpp"

#include <algorithm>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/manifests/render.hpp"
#include "shared/util/json_text.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

const kube::ResourceRef kAgentPods{{"", "v1", "pods"}, std::string(fedapi::kNamespace), "", ""};
// Node Events live in "default" (kube::EventRecorder, like the kubelet's).
const kube::ResourceRef kNodeEvents{{"", "v1", "events"}, "default", "", ""};

// A List's items by reference (json::value() would copy them, and we keep pointers into them).
const json& items_of(const json& list) {
  static const json kNone = json::array();
  const auto it = list.find("items");
  return it != list.end() && it->is_array() ? *it : kNone;
}

const json* agent_on(const json& pods, const std::string& node) {
  for (const auto& p : items_of(pods)) {
    if (p["spec"].value("nodeName", "") == node) return &p;
  }
  return nullptr;
}

// The newest fed-agent-node Event on `node` since `since`: "" when none, or when it is the
// recovery.
std::string latest_failure(const json& events, const std::string& node, const std::string& since) {
  const json* newest = nullptr;
  for (const auto& e : items_of(events)) {
    if (e["involvedObject"].value("kind", "") != "Node" ||
        e["involvedObject"].value("name", "") != node ||
        e["source"].value("component", "") != "fed-agent-node" ||
        e.value("lastTimestamp", "") < since) {
      continue;
    }
    if (newest == nullptr || e.value("lastTimestamp", "") >= newest->value("lastTimestamp", "")) {
      newest = &e;
    }
  }
  if (newest == nullptr || newest->value("type", "") != "Warning") return "";
  return newest->value("reason", "") + ": " + newest->value("message", "");
}

// The path's nodes once each, in order, without the unknown ("") ones.
std::vector<PathNode> distinct_hops(const std::vector<PathNode>& path) {
  std::vector<PathNode> out;
  for (const auto& hop : path) {
    if (!hop.node.empty() && std::find(out.begin(), out.end(), hop) == out.end()) {
      out.push_back(hop);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> agent_findings(const std::vector<PathNode>& path,
                                        const std::map<std::string, json>& agent_pods,
                                        const std::map<std::string, json>& node_events,
                                        const std::string& since) {
  std::vector<std::string> out;
  for (const auto& hop : distinct_hops(path)) {
    const std::string where = hop.cluster + "/" + hop.node;
    const auto pods = agent_pods.find(hop.cluster);
    const auto events = node_events.find(hop.cluster);
    const json* pod = pods == agent_pods.end() ? nullptr : agent_on(pods->second, hop.node);
    // An agent that is not Ready now fails for the reason of its newest failure since it
    // started, which is often before the probe: its passes back off after each failure, so
    // the last one can be a minute old. A Ready agent's old failures are not this probe's.
    std::string failures_since = since;
    if (pod != nullptr && !ready_condition(*pod)) {
      const std::string started(util::string_field((*pod)["status"], "startTime"));
      if (!started.empty()) failures_since = std::min(failures_since, started);
    }
    const std::string failure =
        events == node_events.end() ? "" : latest_failure(events->second, hop.node, failures_since);
    if (pod == nullptr) {
      out.push_back(where + ": no fed-agent pod (is the DaemonSet kept off the node?)");
    } else if (!ready_condition(*pod)) {
      out.push_back(where + ": fed-agent " + (*pod)["metadata"].value("name", "") +
                    " not Ready, its datapath has not converged" +
                    (failure.empty() ? "" : " (" + failure + ")"));
    } else if (!failure.empty()) {
      out.push_back(where + ": " + failure);
    }
  }
  return out;
}

Result<std::string> diagnose_path(const ProbeSides& s, const std::vector<PathNode>& path,
                                  const std::string& since) {
  std::map<std::string, json> pods, events;
  for (auto [id, client] : {std::pair{s.host_id, &s.host}, std::pair{s.member_id, &s.member}}) {
    kube::ListOptions agents;
    agents.label_selector = "app.kubernetes.io/name=fed-agent";
    auto p = client->list(kAgentPods, agents);
    if (!p) {
      return fail(p.error().code(),
                  "list the fed-agent pods of " + id + ": " + p.error().to_error().message());
    }
    pods[id] = std::move(*p);
    kube::ListOptions on_nodes;
    on_nodes.field_selector = "involvedObject.kind=Node";
    auto e = client->list(kNodeEvents, on_nodes);
    if (!e) {
      return fail(e.error().code(),
                  "list the Node Events of " + id + ": " + e.error().to_error().message());
    }
    events[id] = std::move(*e);
  }
  auto findings = agent_findings(path, pods, events, since);
  if (!findings.empty()) return "the node agents report: " + util::join(findings, "; ");
  std::vector<std::string> names;
  for (const auto& hop : distinct_hops(path)) names.push_back(hop.cluster + "/" + hop.node);
  return "the node agents on " + util::join(names, ", ") +
         " are Ready and report no failure (a NetworkPolicy or a firewall on the path?)";
}

}  // namespace fed::plugin

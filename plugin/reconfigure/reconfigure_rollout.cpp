#include "plugin/reconfigure/reconfigure_rollout.hpp"

#include <algorithm>
#include <thread>

#include "plugin/reconfigure/cni_check_pod.hpp"
#include "plugin/reconfigure/node_drain.hpp"
#include "plugin/reconfigure/reconfigure_features.hpp"
#include "plugin/reconfigure/reconfigure_manifests.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/kube/advertised_api.hpp"
#include "shared/reconfig/node_progress.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
const kube::GroupVersionResource kNodes{"", "v1", "nodes"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};
constexpr std::string_view kReconfigureFieldManager = "kubectl-fed-reconfigure";
// Waiting reasons after which the agent's container will not start by itself.
const std::vector<std::string> kStuckReasons = {
    "ErrImagePull",         "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError",
    "CreateContainerError", "ErrImageNeverPull"};

kube::ResourceRef pod_ref(const std::string& node) {
  return kube::ResourceRef{kPods, std::string(kReconfigureNamespace), agent_pod_name(node), ""};
}

Status install_agent_objects(kube::DynamicClient& c) {
  FED_TRY(ensure_reconfigure_namespace(c));
  // Our own field manager: `init` applies other objects as "kubectl-fed".
  kube::ApplyOptions apply{std::string(kReconfigureFieldManager), true, false};
  for (const auto& o : reconfigure_rbac()) {
    auto r = c.apply_object(o, apply);
    if (!r) {
      return r.error().to_error().with_context("installing " + o.value("kind", "") + " " +
                                               o["metadata"].value("name", ""));
    }
  }
  return ok();
}

void remove_agent_rbac(kube::DynamicClient& c, const ProgressFn& progress) {
  auto objects = reconfigure_rbac();
  std::reverse(objects.begin(), objects.end());
  for (const auto& o : objects) {
    auto r = c.remove_object(o);
    if (!r && !r.error().is_not_found()) {
      progress("could not remove " + o.value("kind", "") + " " + o["metadata"].value("name", "") +
               ": " + r.error().to_error().message());
    }
  }
}

Result<std::vector<std::string>> node_names(kube::DynamicClient& c) {
  kube::ListOptions real_nodes;
  real_nodes.label_selector = fedapi::kRealNodesSelector;
  auto nodes = c.list_all(kube::ResourceRef{kNodes, "", "", ""}, real_nodes);
  if (!nodes) return nodes.error().to_error().with_context("listing nodes");
  std::vector<std::string> names;
  for (const auto& n : (*nodes)["items"]) names.push_back(n["metadata"].value("name", ""));
  return names;
}

// Removes a finished agent pod an earlier run left; Conflict when one still runs.
Status clear_old_pod(kube::DynamicClient& c, const std::string& node) {
  auto old = c.get(pod_ref(node));
  if (!old) return old.error().is_not_found() ? ok() : Status(old.error().to_error());
  const std::string phase = (*old)["status"].value("phase", "");
  if (phase != "Succeeded" && phase != "Failed") {
    return Error(ErrorCode::Conflict, "another reconfiguration runs on node " + node + " (pod " +
                                          std::string(kReconfigureNamespace) + "/" +
                                          agent_pod_name(node) + " is " + phase +
                                          "); wait for it or delete the pod");
  }
  (void)c.remove(pod_ref(node));
  for (int i = 0; i < 60; ++i) {
    auto again = c.get(pod_ref(node));
    if (!again && again.error().is_not_found()) return ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return Error(ErrorCode::Unavailable, "old agent pod of node " + node + " is not going away");
}

std::string waiting_reason(const json& pod) {
  const json status = pod.value("status", json::object());
  for (const auto& cs : status.value("containerStatuses", json::array())) {
    const json waiting = cs.value("state", json::object()).value("waiting", json::object());
    const std::string reason = waiting.value("reason", "");
    if (std::find(kStuckReasons.begin(), kStuckReasons.end(), reason) != kStuckReasons.end()) {
      return reason + ": " + waiting.value("message", "");
    }
  }
  return "";
}

// One node of a batch while its agent runs.
struct Slot {
  NodeResult result;
  Clock::time_point start;
  bool cordoned = false;   // we cordoned it, so we uncordon it
  bool running = false;    // its agent pod was created and has not ended
  bool untouched = false;  // it failed before its agent ran: nothing on it changed
};

void finish(Slot& s, NodeOutcome outcome, std::string message) {
  s.result.outcome = outcome;
  s.result.message = std::move(message);
  s.running = false;
}

// "IP:PORT" of the API server as it advertises itself, or "" (then the agent uses the Service
// address): a host-network pod cannot count on a route to the Service range.
std::string api_endpoint(kube::DynamicClient& c) {
  auto advertised = kube::advertised_api_address(c);
  return advertised ? advertised->ip + ":" + std::to_string(advertised->port) : "";
}

void start_node(kube::DynamicClient& c, const ReconfigurePlan& plan, const std::string& endpoint,
                Slot& s, const ProgressFn& progress) {
  const std::string& node = s.result.node;
  s.start = Clock::now();
  if (plan.drain == DrainMode::On) {
    auto cordoned = cordon(c, node);
    if (!cordoned) return finish(s, NodeOutcome::Failed, cordoned.error().message());
    s.cordoned = *cordoned;
    progress(node + ": cordoned, draining");
    const auto deadline = Clock::now() + std::max(plan.gate_timeout, std::chrono::seconds(120));
    if (auto drained = drain(c, node, deadline); !drained) {
      s.untouched = true;
      return finish(s, NodeOutcome::Failed, drained.error().message());
    }
  }
  if (auto cleared = clear_old_pod(c, node); !cleared) {
    s.untouched = true;
    return finish(s, NodeOutcome::Failed, cleared.error().message());
  }
  auto created = c.create(pod_ref(node).collection(), agent_pod(plan, node, endpoint));
  if (!created) {
    s.untouched = true;
    return finish(s, NodeOutcome::Failed,
                  created.error().to_error().with_context("creating the agent pod").message());
  }
  s.running = true;
  progress(node + ": agent pod " + agent_pod_name(node) + " started");
}

// Looks at a running slot once; fills its result when the pod has ended.
void poll_node(kube::DynamicClient& c, Slot& s, Clock::time_point deadline) {
  const std::string& node = s.result.node;
  auto pod = c.get(pod_ref(node));
  if (!pod) {
    if (pod.error().is_not_found()) finish(s, NodeOutcome::Failed, "the agent pod was deleted");
    return;  // a transient error: look again
  }
  const std::string phase = (*pod)["status"].value("phase", "");
  if (phase == "Succeeded" || phase == "Failed") {
    const std::string path = "/api/v1/namespaces/" + std::string(kReconfigureNamespace) + "/pods/" +
                             agent_pod_name(node) + "/log";
    const std::string log = c.get_raw(path).value_or("");
    std::string progress_phase, progress_message;
    if (auto n = c.get(kube::ResourceRef{kNodes, "", node, ""})) {
      if (auto p = reconfig::progress_from_node(*n); p && p->has_value()) {
        progress_phase = std::string(reconfig::to_string((*p)->phase));
        progress_message = (*p)->message;
      }
    }
    s.result = node_result_from_pod(node, *pod, log, progress_phase, progress_message);
    s.running = false;
    return;
  }
  if (const std::string stuck = waiting_reason(*pod); !stuck.empty()) {
    (void)c.remove(pod_ref(node));  // it never ran: nothing on the node changed
    s.untouched = true;
    return finish(s, NodeOutcome::Failed, "the agent pod cannot start: " + stuck);
  }
  if (Clock::now() >= deadline) {
    finish(s, NodeOutcome::Failed,
           "the agent pod did not finish in time (phase " + phase +
               "); it is left running: " + "kubectl -n " + std::string(kReconfigureNamespace) +
               " logs " + agent_pod_name(node));
  }
}

// After a node's CNI switch: a new pod there must get its address from the new network. The
// node stays cordoned when it does not (drain on): the old network is a --rollback away.
void check_cni(kube::DynamicClient& c, const ReconfigurePlan& plan, Slot& s,
               const ProgressFn& progress) {
  progress(s.result.node + ": checking a new pod's address");
  auto probed = probe_cni(c, plan, s.result.node, std::chrono::seconds(60));
  if (!probed) {
    s.result.outcome = NodeOutcome::Failed;
    s.result.message = probed.error().message();
    return;
  }
  s.result.message = *probed;
  const bool rollback = plan.cni->rollback;
  const json annotations = {
      {std::string(kCniNetworkAnnotation), rollback ? json() : json(plan.cni->network)},
      {std::string(kCniProbeAnnotation), rollback ? json() : json(*probed)}};
  auto patched = c.patch(kube::ResourceRef{kNodes, "", s.result.node, ""}, kube::PatchType::Merge,
                         json{{"metadata", {{"annotations", annotations}}}}.dump());
  if (!patched) {
    s.result.message +=
        " (recording it on the Node failed: " + patched.error().to_error().message() + ")";
  }
}

NodeResult pending(const std::string& node) {
  NodeResult r;
  r.node = node;
  return r;
}

bool applied(NodeOutcome o) {
  return o == NodeOutcome::Applied || o == NodeOutcome::AlreadyApplied || o == NodeOutcome::Removed;
}

}  // namespace

std::string_view to_string(NodeOutcome outcome) {
  switch (outcome) {
    case NodeOutcome::Applied:
      return "Applied";
    case NodeOutcome::AlreadyApplied:
      return "AlreadyApplied";
    case NodeOutcome::RolledBack:
      return "RolledBack";
    case NodeOutcome::Failed:
      return "Failed";
    case NodeOutcome::Skipped:
      return "Skipped";
    case NodeOutcome::Removed:
      return "Removed";
  }
  return "Failed";
}

bool ClusterResult::succeeded() const {
  return !error && std::all_of(nodes.begin(), nodes.end(), [](const NodeResult& n) {
    return applied(n.outcome);
  }) && std::all_of(features.begin(), features.end(), [](const FeatureResult& f) {
    return applied(f.outcome);
  });
}

Status ensure_reconfigure_namespace(kube::DynamicClient& c) {
  // The namespace is shared with the federation's install (`init`, `join`): created when
  // missing, never re-applied, so that its labels stay whoever set them.
  const json ns = reconfigure_namespace();
  auto existing = c.get(
      kube::ResourceRef{{"", "v1", "namespaces"}, "", std::string(kReconfigureNamespace), ""});
  if (!existing && existing.error().is_not_found()) {
    auto created = c.create_object(ns);
    if (!created && !created.error().is_already_exists()) {
      return created.error().to_error().with_context("creating namespace " +
                                                     std::string(kReconfigureNamespace));
    }
  } else if (!existing) {
    return existing.error().to_error();
  }
  return ok();
}

ClusterResult roll_out(kube::DynamicClient& c, const ReconfigurePlan& plan,
                       const std::string& context, const ProgressFn& progress) {
  ClusterResult cluster{context, {}, {}, std::nullopt};
  std::vector<std::pair<std::string, bool>> features;  // name, install
  for (const auto& f : plan.removed_features) features.emplace_back(f, false);
  for (const auto& f : plan.features) features.emplace_back(f, true);
  for (const auto& [feature, install] : features) {
    FeatureResult r = install ? install_feature(c, feature, plan.image, plan.webhook_caller_auth,
                                                plan.feature_timeout, progress)
                              : remove_feature(c, feature, plan.feature_timeout, progress);
    progress("feature " + r.name + ": " + std::string(to_string(r.outcome)) +
             (r.message.empty() ? "" : ": " + r.message));
    const bool failed = !applied(r.outcome);
    cluster.features.push_back(std::move(r));
    if (failed) return cluster;  // the kubelet changes wait for a cluster whose features work
  }
  if (plan.changes.changes.empty() && !plan.cni) return cluster;  // features only
  auto names = node_names(c);
  if (!names) {
    cluster.error = names.error();
    return cluster;
  }
  const auto batches = plan_batches(*names, plan.max_unavailable);
  for (const auto& batch : batches) {
    for (const auto& n : batch) cluster.nodes.push_back(pending(n));
  }
  // The CNI switch's pods call no API: no ServiceAccount or RBAC for them.
  if (auto installed = plan.cni ? ensure_reconfigure_namespace(c) : install_agent_objects(c);
      !installed) {
    cluster.error = installed.error();
    return cluster;
  }
  // The agent's gate runs after the change's restart and again after a rollback's; the image
  // pull and the restarts themselves come on top.
  const auto pod_budget = 2 * plan.gate_timeout + std::chrono::seconds(180);
  const std::string endpoint = api_endpoint(c);
  std::size_t first = 0;
  for (const auto& batch : batches) {
    std::vector<Slot> slots;
    for (const auto& n : batch) slots.push_back(Slot{pending(n), {}, false, false});
    for (auto& s : slots) start_node(c, plan, endpoint, s, progress);
    const auto deadline = Clock::now() + pod_budget;
    while (std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.running; })) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      for (auto& s : slots) {
        if (s.running) poll_node(c, s, deadline);
      }
    }
    bool all_applied = true;
    for (auto& s : slots) {
      if (plan.cni && applied(s.result.outcome)) check_cni(c, plan, s, progress);
      s.result.seconds = std::chrono::duration<double>(Clock::now() - s.start).count();
      const NodeOutcome o = s.result.outcome;
      if (applied(o)) (void)c.remove(pod_ref(s.result.node));
      // A rolled-back node runs its old config again and is healthy: back into service, as is
      // one on which the run changed nothing. Any other failed one stays cordoned for a person
      // to look at.
      const bool untouched = o == NodeOutcome::Failed &&
                             (s.untouched || failed_untouched(s.result, plan.cni.has_value()));
      if (s.cordoned && (o != NodeOutcome::Failed || untouched)) {
        if (auto u = uncordon(c, s.result.node); !u) {
          s.result.message += " (uncordon failed)";
        } else if (untouched) {
          s.result.message += " (nothing on it changed: uncordoned)";
        }
      }
      progress(s.result.node + ": " + std::string(to_string(o)) +
               (s.result.message.empty() ? "" : ": " + s.result.message));
      all_applied = all_applied && applied(o);
      cluster.nodes[first++] = s.result;
    }
    if (!all_applied) {
      for (std::size_t i = first; i < cluster.nodes.size(); ++i) {
        cluster.nodes[i].message = "not started: an earlier node did not apply";
      }
      return cluster;
    }
  }
  if (plan.cleanup == Cleanup::Remove && !plan.cni) remove_agent_rbac(c, progress);
  return cluster;
}

bool failed_untouched(const NodeResult& result, bool cni) {
  if (cni || result.outcome != NodeOutcome::Failed) return false;
  return result.phase.empty() || result.phase == reconfig::to_string(reconfig::Phase::Started);
}

NodeResult node_result_from_pod(const std::string& node, const json& pod, const std::string& log,
                                const std::string& phase, const std::string& annotation_message) {
  NodeResult r = pending(node);
  r.phase = phase;
  std::string termination;
  const json status = pod.value("status", json::object());
  for (const auto& cs : status.value("containerStatuses", json::array())) {
    const json terminated = cs.value("state", json::object()).value("terminated", json::object());
    if (terminated.contains("exitCode")) {
      r.exit_code = terminated["exitCode"].get<int>();
      termination = terminated.value("message", "");
    }
  }
  std::string result_line, error_line;
  for (const auto& raw : util::split(log, '\n', util::EmptyParts::Skip)) {
    const std::string line(util::trim(raw));
    if (line.rfind(node + ": ", 0) == 0) result_line = line.substr(node.size() + 2);
    for (std::string_view err : {"fed-agent reconfigure-node: ", "fed-agent cni-switch: "}) {
      if (line.rfind(err, 0) == 0) error_line = line.substr(err.size());
    }
  }
  if (r.exit_code == 0) {
    r.outcome = result_line.rfind("already applied", 0) == 0 ? NodeOutcome::AlreadyApplied
                                                             : NodeOutcome::Applied;
    return r;
  }
  r.outcome = phase == "RolledBack" ? NodeOutcome::RolledBack : NodeOutcome::Failed;
  if (!annotation_message.empty() && (phase == "RolledBack" || phase == "Failed")) {
    r.message = annotation_message;
  } else if (!error_line.empty()) {
    r.message = error_line;
  } else if (!util::trim(termination).empty()) {
    r.message = std::string(util::trim(termination));
  } else {
    r.message = r.exit_code < 0 ? "the agent pod ended without an exit code (" +
                                      status.value("reason", std::string("no reason")) + ")"
                                : "fed-agent exited with code " + std::to_string(r.exit_code);
  }
  return r;
}

}  // namespace fed::plugin

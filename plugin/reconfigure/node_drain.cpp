#include "plugin/reconfigure/node_drain.hpp"

#include <algorithm>
#include <map>
#include <thread>
#include <vector>

#include "plugin/reconfigure/reconfigure_manifests.hpp"
#include "shared/kube/pod_phase.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;
const kube::GroupVersionResource kNodes{"", "v1", "nodes"};
const kube::GroupVersionResource kPods{"", "v1", "pods"};

Status set_unschedulable(kube::DynamicClient& client, const std::string& node, bool value) {
  const json patch = {{"spec", {{"unschedulable", value ? json(true) : json(nullptr)}}}};
  auto r =
      client.patch(kube::ResourceRef{kNodes, "", node, ""}, kube::PatchType::Merge, patch.dump());
  if (!r) return r.error().to_error();
  return ok();
}

Result<std::vector<json>> pods_to_evict(kube::DynamicClient& client, const PodScope& scope) {
  kube::ListOptions list;
  list.field_selector = scope.field_selector;
  auto pods = client.list_all(kube::ResourceRef{kPods, scope.ns, "", ""}, list);
  if (!pods) return pods.error().to_error();
  std::vector<json> out;
  for (const auto& pod : (*pods)["items"]) {
    if (evictable(pod) && (!scope.filter || scope.filter(pod))) out.push_back(pod);
  }
  return out;
}

// The budget that refused an eviction, as the API server names it ("The disruption budget web
// needs 2 healthy pods and has 2 currently"), else its message.
std::string budget_of(const kube::ApiError& error) {
  for (const auto& c : error.causes()) {
    if (c.reason == "DisruptionBudget" && !c.message.empty()) return c.message;
  }
  return error.message();
}

}  // namespace

bool evictable(const json& pod) {
  const json meta = pod.value("metadata", json::object());
  const json labels = meta.value("labels", json::object());
  if (labels.value(std::string(kComponentLabel), "") == kReconfigureComponent) return false;
  if (meta.value("annotations", json::object()).contains("kubernetes.io/config.mirror")) {
    return false;
  }
  for (const auto& owner : meta.value("ownerReferences", json::array())) {
    if (owner.value("kind", "") == "DaemonSet") return false;
  }
  return !kube::pod_finished(pod);
}

bool namespace_terminating(const kube::ApiError& error) {
  const auto& causes = error.causes();
  return error.http_status() == 403 &&
         std::any_of(causes.begin(), causes.end(),
                     [](const kube::StatusCause& c) { return c.reason == "NamespaceTerminating"; });
}

Result<bool> cordon(kube::DynamicClient& client, const std::string& node) {
  auto current = client.get(kube::ResourceRef{kNodes, "", node, ""});
  if (!current) return current.error().to_error();
  if ((*current)["spec"].value("unschedulable", false)) return false;
  FED_TRY(set_unschedulable(client, node, true));
  return true;
}

Status uncordon(kube::DynamicClient& client, const std::string& node) {
  return set_unschedulable(client, node, false);
}

Result<DrainResult> drain(kube::DynamicClient& client, const std::string& node,
                          std::chrono::steady_clock::time_point deadline) {
  return evict_pods(client, PodScope{"node " + node, "", "spec.nodeName=" + node, {}}, deadline);
}

Result<DrainResult> evict_pods(kube::DynamicClient& client, const PodScope& scope,
                               std::chrono::steady_clock::time_point deadline) {
  DrainResult result;
  std::map<std::string, std::string> refused;  // pod -> why its eviction was refused
  for (;;) {
    FED_ASSIGN_OR_RETURN(auto pods, pods_to_evict(client, scope));
    if (pods.empty()) return result;
    for (const auto& pod : pods) {
      const std::string ns = pod["metadata"].value("namespace", "");
      const std::string name = pod["metadata"].value("name", "");
      if (pod["metadata"].contains("deletionTimestamp")) continue;  // already going
      const json eviction = {{"apiVersion", "policy/v1"},
                             {"kind", "Eviction"},
                             {"metadata", {{"name", name}, {"namespace", ns}}}};
      auto r = client.create(kube::ResourceRef{kPods, ns, name, "eviction"}, eviction);
      if (r) {
        result.evicted.push_back(ns + "/" + name);
        if (auto owner = kube::controller_of(pod)) result.owners.insert(std::move(*owner));
        continue;
      }
      // 429: a PodDisruptionBudget says not now; 404: gone meanwhile; 403 NamespaceTerminating:
      // no eviction is accepted there, and the namespace controller deletes the pod anyway.
      // All three: look again.
      if (!r.error().is_not_found() && r.error().http_status() != 429 &&
          !namespace_terminating(r.error())) {
        return r.error().to_error().with_context("evicting " + ns + "/" + name);
      }
      if (r.error().http_status() == 429) refused[ns + "/" + name] = budget_of(r.error());
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::vector<std::string> held;
      for (const auto& p : pods) {
        const std::string id =
            p["metadata"].value("namespace", "") + "/" + p["metadata"].value("name", "");
        const auto it = refused.find(id);
        held.push_back(it == refused.end() ? id : id + " (" + it->second + ")");
      }
      return Error(ErrorCode::Unavailable,
                   "the eviction of the pods of " + scope.what +
                       " did not finish: " + util::join(held, ", ") + " still there" +
                       (refused.empty() ? std::string(" (a PodDisruptionBudget may forbid the "
                                                      "eviction)")
                                        : std::string("; let the budget allow it, or wait for "
                                                      "healthy replicas elsewhere")));
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

Result<json> move_pods(kube::DynamicClient& client, const PodScope& scope,
                       std::chrono::steady_clock::time_point deadline,
                       const std::function<void(const std::string&)>& progress) {
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  const auto start = std::chrono::steady_clock::now();
  progress("evicting the pods of " + scope.what + "...");
  FED_ASSIGN_OR_RETURN(auto evicted, evict_pods(client, scope, deadline));
  json report{{"evicted", evicted.evicted}, {"evictSeconds", seconds_since(start)}};
  if (!evicted.owners.empty()) progress("waiting for their replacements to be ready...");
  const auto replacing = std::chrono::steady_clock::now();
  FED_TRY(wait_owners_ready(client, evicted.owners, deadline));
  report["replacementsReadySeconds"] = seconds_since(replacing);
  return report;
}

Status wait_owners_ready(kube::DynamicClient& client, const std::set<kube::PodOwner>& owners,
                         std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    std::vector<std::string> waiting;
    for (const auto& o : owners) {
      FED_ASSIGN_OR_RETURN(auto short_of_ready, kube::owner_short_of_ready(client, o));
      if (short_of_ready) waiting.push_back(std::move(*short_of_ready));
    }
    if (waiting.empty()) return ok();
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error(ErrorCode::Unavailable,
                   "the evicted pods' replacements are not ready: " + util::join(waiting, ", ") +
                       "; is there room for them on another cluster or node?");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace fed::plugin

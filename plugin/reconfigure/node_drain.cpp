#include "plugin/reconfigure/node_drain.hpp"

#include <algorithm>

#include <thread>
#include <vector>

#include "plugin/reconfigure/reconfigure_manifests.hpp"
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

Result<std::vector<json>> pods_to_evict(kube::DynamicClient& client, const std::string& node) {
  kube::ListOptions list;
  list.field_selector = "spec.nodeName=" + node;
  auto pods = client.list_all(kube::ResourceRef{kPods, "", "", ""}, list);
  if (!pods) return pods.error().to_error();
  std::vector<json> out;
  for (const auto& pod : (*pods)["items"]) {
    if (evictable(pod)) out.push_back(pod);
  }
  return out;
}

std::string names_of(const std::vector<json>& pods) {
  std::vector<std::string> names;
  for (const auto& p : pods) {
    names.push_back(p["metadata"].value("namespace", "") + "/" + p["metadata"].value("name", ""));
  }
  return util::join(names, ", ");
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
  const std::string phase = pod.value("status", json::object()).value("phase", "");
  return phase != "Succeeded" && phase != "Failed";
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

Status drain(kube::DynamicClient& client, const std::string& node,
             std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    FED_ASSIGN_OR_RETURN(auto pods, pods_to_evict(client, node));
    if (pods.empty()) return ok();
    for (const auto& pod : pods) {
      const std::string ns = pod["metadata"].value("namespace", "");
      const std::string name = pod["metadata"].value("name", "");
      if (pod["metadata"].contains("deletionTimestamp")) continue;  // already going
      const json eviction = {{"apiVersion", "policy/v1"},
                             {"kind", "Eviction"},
                             {"metadata", {{"name", name}, {"namespace", ns}}}};
      auto r = client.create(kube::ResourceRef{kPods, ns, name, "eviction"}, eviction);
      // 429: a PodDisruptionBudget says not now; 404: gone meanwhile; 403 NamespaceTerminating:
      // no eviction is accepted there, and the namespace controller deletes the pod anyway.
      // All three: look again.
      if (!r && !r.error().is_not_found() && r.error().http_status() != 429 &&
          !namespace_terminating(r.error())) {
        return r.error().to_error().with_context("evicting " + ns + "/" + name);
      }
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error(ErrorCode::Unavailable, "drain of node " + node +
                                               " did not finish: " + names_of(pods) +
                                               " still there (a PodDisruptionBudget may forbid "
                                               "the eviction)");
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace fed::plugin

#include "agent/manager/offload/virtual_kubelet/virtual_node_reconciler.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "agent/manager/offload/virtual_kubelet/virtual_node.hpp"
#include "shared/fedapi/federated_cluster.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

const kube::ResourceRef kNodes{{"", "v1", "nodes"}, "", "", ""};
const kube::ResourceRef kLeases{
    {"coordination.k8s.io", "v1", "leases"}, std::string(kNodeLeaseNamespace), "", ""};

// The parts of a condition the kubelet would rewrite on change (not the timestamps).
json condition_key(const json& c) {
  return {c.value("type", ""), c.value("status", ""), c.value("reason", ""),
          c.value("message", "")};
}

// Whether `current`'s status already says what `desired`'s does, and recently enough.
bool status_current(const json& desired, const json& current, Clock::time_point now) {
  const json want = desired["status"];
  const json have = current.value("status", json::object());
  if (have.value("capacity", json()) != want["capacity"] ||
      have.value("allocatable", json()) != want["allocatable"] ||
      have.value("addresses", json::array()) != want["addresses"] ||
      have.value("daemonEndpoints", json()) != want["daemonEndpoints"]) {
    return false;
  }
  const json have_conditions = have.value("conditions", json::array());
  if (have_conditions.size() != want["conditions"].size()) return false;
  for (std::size_t i = 0; i < have_conditions.size(); ++i) {
    if (condition_key(have_conditions[i]) != condition_key(want["conditions"][i])) return false;
  }
  auto beat = util::parse_rfc3339(have_conditions[0].value("lastHeartbeatTime", ""));
  return beat && now - *beat < kStatusRefresh;
}

bool has_taint(const json& node, const json& taint) {
  for (const auto& t : node.value("spec", json::object()).value("taints", json::array())) {
    if (t.value("key", "") == taint["key"] && t.value("effect", "") == taint["effect"]) {
      return true;
    }
  }
  return false;
}

}  // namespace

VirtualNodeReconciler::VirtualNodeReconciler(std::shared_ptr<kube::DynamicClient> host,
                                             kube::Informer& clusters, kube::Informer& nodes,
                                             kube::Informer& namespace_maps,
                                             KubeletEndpointSource kubelet)
    : host_(std::move(host)),
      clusters_(clusters),
      nodes_(nodes),
      namespace_maps_(namespace_maps),
      kubelet_(std::move(kubelet)) {}

std::string VirtualNodeReconciler::virtual_node_selector() {
  return std::string(fedapi::kTypeLabel) + "=" + std::string(fedapi::kTypeVirtualNode);
}

std::vector<kube::Request> VirtualNodeReconciler::member_of(const json& node) {
  const std::string id = node["metadata"]
                             .value("labels", json::object())
                             .value(std::string(fedapi::kClusterIdLabel), "");
  if (id.empty()) return {};
  return {kube::Request{"", id}};
}

std::vector<kube::Request> VirtualNodeReconciler::member_of_map(const json& namespace_map) {
  return {kube::Request{"", namespace_map["metadata"].value("name", "")}};
}

Result<kube::Requeue> VirtualNodeReconciler::reconcile(const kube::Request& request) {
  const std::string& id = request.name;
  const std::string name = virtual_node_name(id);
  auto fc = clusters_.store().get("", id);
  if (!fc || (*fc)["metadata"].contains("deletionTimestamp")) {
    FED_TRY(remove(id));
    return kube::Requeue{};
  }
  FED_ASSIGN_OR_RETURN(auto spec, fedapi::decode<fedapi::FederatedClusterSpec>(
                                      (*fc)["spec"], "FederatedCluster " + id + " spec"));
  if (spec.role == "host") {
    FED_TRY(remove(id));
    return kube::Requeue{};
  }
  fedapi::FederatedClusterStatus status;
  if (fc->contains("status")) {
    FED_ASSIGN_OR_RETURN(status, fedapi::decode<fedapi::FederatedClusterStatus>(
                                     (*fc)["status"], "FederatedCluster " + id + " status"));
  }
  const auto current = nodes_.store().get("", name);
  const auto now = Clock::now();
  FED_ASSIGN_OR_RETURN(auto desired, virtual_node(spec, readiness(status, Leaving::No),
                                                  current ? *current : json(nullptr), now,
                                                  kubelet_ ? kubelet_() : std::nullopt));
  FED_ASSIGN_OR_RETURN(auto uid, ensure_node(desired, current ? &*current : nullptr));
  FED_ASSIGN_OR_RETURN(auto next_renewal, renew_lease_when_due(name, uid, !current));
  FED_TRY(ensure_namespace_map(id));
  return kube::Requeue{next_renewal};
}

Result<std::string> VirtualNodeReconciler::ensure_node(const json& desired, const json* current) {
  const std::string name = desired["metadata"]["name"];
  const auto ref = kNodes.named(name);
  const auto now = Clock::now();
  if (current == nullptr) {
    auto created = host_->create(kNodes, desired);
    if (!created && !created.error().is_already_exists()) {
      return created.error().to_error().with_context("creating virtual node " + name);
    }
    if (!created)
      return fail(ErrorCode::Unavailable, "virtual node " + name + " appeared meanwhile");
    spdlog::info("virtual node {} registered", name);
    // Whether create kept the status or not, the status subresource makes it so.
    auto patched = host_->patch_status(ref, kube::PatchType::Merge,
                                       json{{"status", desired["status"]}}.dump());
    if (!patched)
      return patched.error().to_error().with_context("reporting virtual node " + name + " status");
    return (*created)["metadata"].value("uid", "");
  }
  const json& node = *current;
  // Labels: ours and the member's win; labels others added (by hand, other controllers) stay.
  json labels_patch = json::object();
  const json have = node["metadata"].value("labels", json::object());
  for (const auto& [k, v] : desired["metadata"]["labels"].items()) {
    if (have.value(k, json()) != v) labels_patch[k] = v;
  }
  // The taint list is replaced whole (a merge patch cannot add to a list), so the patch is
  // conditional on the resourceVersion: taints the node lifecycle controller added meanwhile
  // make it fail and come round again instead of being dropped.
  const json taint = desired["spec"]["taints"][0];
  const bool taint_missing = !has_taint(node, taint);
  if (!labels_patch.empty() || taint_missing) {
    json patch{{"metadata", {{"resourceVersion", node["metadata"].value("resourceVersion", "")}}}};
    if (!labels_patch.empty()) patch["metadata"]["labels"] = labels_patch;
    if (taint_missing) {
      json taints = node.value("spec", json::object()).value("taints", json::array());
      taints.push_back(taint);
      patch["spec"]["taints"] = taints;
    }
    auto patched = host_->patch(ref, kube::PatchType::Merge, patch.dump());
    if (!patched) return patched.error().to_error().with_context("updating virtual node " + name);
  }
  if (!status_current(desired, node, now)) {
    auto patched = host_->patch_status(ref, kube::PatchType::Merge,
                                       json{{"status", desired["status"]}}.dump());
    if (!patched)
      return patched.error().to_error().with_context("reporting virtual node " + name + " status");
  }
  return node["metadata"].value("uid", "");
}

Status VirtualNodeReconciler::renew_lease(const std::string& node, const std::string& uid) {
  const json lease = node_lease(node, uid, Clock::now());
  const json renewal{{"spec",
                      {{"renewTime", lease["spec"]["renewTime"]},
                       {"holderIdentity", node},
                       {"leaseDurationSeconds", kLeaseDurationSeconds}}}};
  auto renewed = host_->patch(kLeases.named(node), kube::PatchType::Merge, renewal.dump());
  if (renewed) return ok();
  if (!renewed.error().is_not_found()) {
    return renewed.error().to_error().with_context("renewing the Lease of virtual node " + node);
  }
  auto created = host_->create(kLeases, lease);
  if (!created && !created.error().is_already_exists()) {
    return created.error().to_error().with_context("creating the Lease of virtual node " + node);
  }
  return ok();
}

Result<std::chrono::milliseconds> VirtualNodeReconciler::renew_lease_when_due(
    const std::string& node, const std::string& uid, bool now_due) {
  using std::chrono::milliseconds;
  const auto now = std::chrono::steady_clock::now();
  bool first = true;
  {
    std::lock_guard lock(renewal_mu_);
    // Within a second of due counts as due: the pass that a requeue brings comes a hair
    // early at times, and a zero delay would mean no requeue at all.
    auto due = next_renewal_.find(node);
    if (due != next_renewal_.end()) {
      first = false;
      if (!now_due && now < due->second - std::chrono::seconds(1)) {
        return std::chrono::ceil<milliseconds>(due->second - now);
      }
    }
  }
  FED_TRY(renew_lease(node, uid));
  // This process's first renewal of a node is followed by one at a point of the interval
  // picked by the node's name: the nodes' renewals spread over it instead of all falling in
  // one burst every kRenewInterval after a restart.
  milliseconds next = std::chrono::duration_cast<milliseconds>(kRenewInterval);
  if (first) {
    next = std::max(milliseconds(std::hash<std::string>{}(node) % next.count()),
                    milliseconds(std::chrono::seconds(2)));
  }
  std::lock_guard lock(renewal_mu_);
  next_renewal_[node] = now + next;
  return next;
}

Status VirtualNodeReconciler::ensure_namespace_map(const std::string& cluster_id) {
  if (namespace_maps_.store().get("", cluster_id)) return ok();
  json map{{"apiVersion", std::string(fedapi::kApiVersion)},
           {"kind", std::string(fedapi::kNamespaceMap.kind)},
           {"metadata",
            {{"name", cluster_id},
             {"labels",
              {{"app.kubernetes.io/part-of", "kubectl-fed"},
               {std::string(fedapi::kClusterIdLabel), cluster_id}}}}},
           {"spec", {{"clusterID", cluster_id}, {"desiredMapping", json::object()}}}};
  auto created = host_->create(fedapi::ref(fedapi::kNamespaceMap, "").collection(), map);
  if (!created && !created.error().is_already_exists()) {
    return created.error().to_error().with_context("creating NamespaceMap " + cluster_id);
  }
  return ok();
}

Status VirtualNodeReconciler::remove(const std::string& cluster_id) {
  const std::string name = virtual_node_name(cluster_id);
  {
    std::lock_guard lock(renewal_mu_);
    next_renewal_.erase(name);
  }
  // The member's replicas go with unjoin (they carry the part-of label it removes).
  for (const auto& ref :
       {kNodes.named(name), kLeases.named(name), fedapi::ref(fedapi::kNamespaceMap, cluster_id)}) {
    auto removed = host_->remove(ref);
    if (!removed && !removed.error().is_not_found()) {
      return removed.error().to_error().with_context("removing virtual node " + name);
    }
    if (removed && ref.gvr.resource == "nodes") {
      spdlog::info("virtual node {} removed (member {} left)", name, cluster_id);
    }
  }
  return ok();
}

}  // namespace fed::offload

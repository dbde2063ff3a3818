#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"

#include <spdlog/spdlog.h>

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/fedapi/namespace_map.hpp"
#include "shared/kube/object_edits.hpp"

namespace fed::offload {
namespace {

using fedapi::MappingPhase;
using nlohmann::json;

const kube::ResourceRef kNamespaces{{"", "v1", "namespaces"}, "", "", ""};

// Whether the member namespace is the replica of host namespace `local` made for `host_id`.
bool ours(const json& ns, const std::string& host_id, const std::string& local) {
  const json labels = ns["metadata"].value("labels", json::object());
  return labels.value(std::string(kOriginClusterLabel), "") == host_id &&
         labels.value(std::string(kOriginNamespaceLabel), "") == local;
}

const kube::ResourceRef kRoleBindings{
    {"rbac.authorization.k8s.io", "v1", "rolebindings"}, "", "", ""};

// The federation's rights in replica `ns` (docs/OFFLOAD.md): kReplicaRole, bound in `ns` only.
// Created without a GET first: AlreadyExists is the answer for a replica that has it, and a new
// replica (the common case when offloading) saves a round trip to the member.
Status ensure_replica_access(kube::DynamicClient& member, const std::string& ns) {
  const std::string name(kReplicaRole);
  json binding{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "RoleBinding"},
      {"metadata",
       {{"name", name},
        {"namespace", ns},
        {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
      {"subjects", json::array({{{"kind", "ServiceAccount"},
                                 {"name", std::string(kFederationServiceAccount)},
                                 {"namespace", std::string(fedapi::kNamespace)}}})}};
  auto created = member.create(kRoleBindings.in_namespace(ns), binding);
  if (!created && !created.error().is_already_exists()) return created.error().to_error();
  return ok();
}

// Accepted once the federation may reflect pods into `remote`; CreationLoopBackOff until then.
MappingPhase accept(kube::DynamicClient& member, const std::string& id, const std::string& remote) {
  auto access = ensure_replica_access(member, remote);
  if (access) return MappingPhase::Accepted;
  spdlog::warn("NamespaceMap {}: binding {} in {} on {}: {}", id, kReplicaRole, remote, id,
               access.error().message());
  return MappingPhase::CreationLoopBackOff;
}

}  // namespace

json origin_labels(std::string_view host_cluster_id, std::string_view host_namespace) {
  return {{"app.kubernetes.io/part-of", "kubectl-fed"},
          {std::string(kOriginClusterLabel), std::string(host_cluster_id)},
          {std::string(kOriginNamespaceLabel), std::string(host_namespace)}};
}

NamespaceMapReconciler::NamespaceMapReconciler(std::shared_ptr<kube::DynamicClient> host,
                                               std::string host_cluster_id,
                                               kube::Informer& namespace_maps,
                                               MemberClient member_client, FreshReplicas& fresh)
    : host_(std::move(host)),
      host_id_(std::move(host_cluster_id)),
      maps_(namespace_maps),
      member_client_(std::move(member_client)),
      fresh_(fresh) {}

Result<kube::Requeue> NamespaceMapReconciler::reconcile(const kube::Request& request) {
  const std::string& id = request.name;
  auto object = maps_.store().get("", id);
  if (!object) return kube::Requeue{};
  const json& nm = *object;
  FED_ASSIGN_OR_RETURN(auto spec, fedapi::decode<fedapi::NamespaceMapSpec>(
                                      nm.value("spec", json::object()), "NamespaceMap " + id));
  fedapi::NamespaceMapStatus previous;
  if (nm.contains("status")) {
    auto decoded = fedapi::decode<fedapi::NamespaceMapStatus>(nm["status"], "NamespaceMap status");
    if (decoded) previous = std::move(*decoded);
  }
  auto client = member_client_(id);
  if (!client) {
    spdlog::info("NamespaceMap {}: member not reachable yet ({})", id, client.error().message());
    return kube::Requeue{kRecheck};
  }
  kube::DynamicClient& member = **client;

  // One LIST of this host's replicas on the member instead of a GET per entry: a reconcile costs
  // the same API calls whatever the number of replicas already there (the thesis' controller
  // re-checked each one and grew super-linear, E2). The RoleBindings, which cannot be listed
  // cluster-wide, are checked for new entries, and for all at most every kRecheck.
  // A member that holds no replica yet (its first offloading) has nothing to list: its
  // namespaces are created straight away, and one that exists already is read then. That is
  // one round trip less per member when a namespace is offloaded to many (E1).
  const bool first = previous.current_mapping.empty();
  std::map<std::string, json> replicas;
  if (!first) {
    kube::ListOptions mine;
    mine.label_selector = std::string(kOriginClusterLabel) + "=" + host_id_;
    auto listed = member.list_all(kNamespaces, mine);
    if (!listed) return listed.error().to_error().with_context("listing the replicas on " + id);
    for (auto& item : (*listed)["items"]) replicas[item["metadata"].value("name", "")] = item;
  }
  const bool full_check = full_check_due(id);

  fedapi::NamespaceMapStatus status;
  bool settling = false;  // a replica is being deleted: look again soon
  for (const auto& [local, remote] : spec.desired_mapping) {
    auto& entry = status.current_mapping[local];
    entry.remote_namespace = remote;
    const auto was = previous.current_mapping.find(local);
    const bool accepted = was != previous.current_mapping.end() &&
                          was->second.remote_namespace == remote &&
                          was->second.phase == MappingPhase::Accepted;
    // The phase of a replica that exists on the member.
    auto existing_phase = [&](const json& replica) {
      if (!ours(replica, host_id_, local)) {
        spdlog::warn(
            "NamespaceMap {}: namespace {} on {} is the replica of another namespace; "
            "not adopted (choose another namespaceMappingStrategy)",
            id, remote, id);
        return MappingPhase::CreationLoopBackOff;
      }
      if (replica["metadata"].contains("deletionTimestamp")) {
        settling = true;
        return MappingPhase::Terminating;  // recreated once it is gone
      }
      return accepted && !full_check ? MappingPhase::Accepted : accept(member, id, remote);
    };
    const auto existing = replicas.find(remote);
    if (existing != replicas.end()) {
      entry.phase = existing_phase(existing->second);
      continue;
    }
    json ns{{"apiVersion", "v1"},
            {"kind", "Namespace"},
            {"metadata", {{"name", remote}, {"labels", origin_labels(host_id_, local)}}}};
    auto created = member.create(kNamespaces, ns);
    if (created) {
      spdlog::info("NamespaceMap {}: created namespace {} on {} for {}", id, remote, id, local);
      fresh_.created(id, remote);
      entry.phase = accept(member, id, remote);
      continue;
    }
    if (first && created.error().is_already_exists()) {  // not listed: read it
      auto found = member.get(kNamespaces.named(remote));
      if (found) {
        entry.phase = existing_phase(*found);
        continue;
      }
    }
    entry.phase = MappingPhase::CreationLoopBackOff;
    // AlreadyExists: a namespace of that name that is not a replica of this host.
    spdlog::warn("NamespaceMap {}: creating namespace {} on {} for {}: {}", id, remote, id, local,
                 created.error().to_error().message());
  }
  for (const auto& [local, was] : previous.current_mapping) {
    if (spec.desired_mapping.count(local) != 0) continue;
    const auto existing = replicas.find(was.remote_namespace);
    if (existing == replicas.end()) {
      spdlog::info("NamespaceMap {}: replica {} of {} is gone", id, was.remote_namespace, local);
      continue;  // gone (or never ours): the entry leaves currentMapping
    }
    if (!ours(existing->second, host_id_, local)) continue;  // never delete what is not ours
    if (!existing->second["metadata"].contains("deletionTimestamp")) {
      fresh_.forget(id, was.remote_namespace);
      auto removed = member.remove(kNamespaces.named(was.remote_namespace));
      if (!removed && !removed.error().is_not_found()) return removed.error().to_error();
    }
    status.current_mapping[local] = {was.remote_namespace, MappingPhase::Terminating};
    settling = true;
  }
  if (status != previous) {
    // Whole: entries that left must go. The spec is the offloading controller's and often
    // changes meanwhile; replace_status rereads the map then instead of waiting for a retry.
    auto r = kube::replace_status(*host_, fedapi::ref(fedapi::kNamespaceMap, id), nm, status);
    if (!r) {
      return r.error().to_error().with_context("NamespaceMap " + id + " status");
    }
  }
  return kube::Requeue{settling ? std::chrono::seconds(2) : kRecheck};
}

bool NamespaceMapReconciler::full_check_due(const std::string& id) {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  auto& last = last_full_check_[id];
  if (last.time_since_epoch().count() != 0 && now - last < kRecheck) return false;
  last = now;
  return true;
}

}  // namespace fed::offload

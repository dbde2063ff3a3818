#include "agent/manager/offload/replication/replication_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>

#include "agent/manager/offload/replication/replica_plan.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/offload/node_selector_match.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

const kube::GroupVersionResource kDeployments{"apps", "v1", "deployments"};

kube::ResourceRef replication_ref(const std::string& ns, const std::string& name) {
  return fedapi::ref_in(fedapi::kDeploymentReplication, ns, name);
}

bool selected_by(const fedapi::NodeSelector& selector, const NodeFacts& node,
                 std::string_view path) {
  auto hit = matches(selector, node, path);
  return hit && *hit;
}

}  // namespace

ReplicationReconciler::ReplicationReconciler(std::shared_ptr<kube::DynamicClient> host,
                                             ReplicationInformers informers,
                                             kube::EventRecorder* events)
    : host_(std::move(host)), in_(informers), events_(events) {}

std::string ReplicationReconciler::replica_selector() {
  return std::string(fedapi::kReplicaOfLabel);
}

std::vector<kube::Request> ReplicationReconciler::owner_of_replica(const json& deployment) {
  const json& meta = deployment["metadata"];
  const std::string owner =
      meta.value("labels", json::object()).value(std::string(fedapi::kReplicaOfLabel), "");
  if (owner.empty()) return {};
  return {kube::Request{meta.value("namespace", ""), owner}};
}

std::vector<kube::Request> ReplicationReconciler::replications_in_namespace(
    const json& offloading) const {
  const std::string ns = offloading["metadata"].value("namespace", "");
  std::vector<kube::Request> out;
  for (const auto& r : in_.replications.store().list()) {
    if ((*r)["metadata"].value("namespace", "") == ns) {
      out.push_back(kube::Request{ns, (*r)["metadata"].value("name", "")});
    }
  }
  return out;
}

std::vector<kube::Request> ReplicationReconciler::every_replication(const json&) const {
  std::vector<kube::Request> out;
  for (const auto& r : in_.replications.store().list()) {
    out.push_back(
        kube::Request{(*r)["metadata"].value("namespace", ""), (*r)["metadata"].value("name", "")});
  }
  return out;
}

ReplicationReconciler::Eligibility ReplicationReconciler::eligible_nodes(
    const json& replication, const fedapi::DeploymentReplicationSpec& spec) const {
  const std::string ns = replication["metadata"].value("namespace", "");
  auto offloading = in_.offloadings.store().get(ns, std::string(fedapi::kNamespaceOffloadingName));
  if (!offloading || (*offloading)["metadata"].contains("deletionTimestamp")) {
    return {{},
            "NamespaceNotOffloaded",
            "namespace " + ns +
                " is not offloaded, so no member can run a replica: run "
                "`kubectl fed offload namespace " +
                ns + "` first"};
  }
  auto off = fedapi::decode<fedapi::NamespaceOffloadingSpec>(
      (*offloading).value("spec", json::object()), "NamespaceOffloading spec");
  if (!off) return {{}, "NamespaceNotOffloaded", off.error().message()};
  if (off->pod_offloading_strategy == fedapi::PodOffloadingStrategy::Local) {
    return {{},
            "LocalOffloading",
            "namespace " + ns +
                " keeps its pods local (podOffloadingStrategy Local), so no replica could run "
                "on a member: choose LocalAndRemote or Remote"};
  }
  Eligibility out;
  const auto cluster_selector = off->effective_cluster_selector();
  for (const auto& vn : in_.virtual_nodes.store().list()) {
    NodeFacts node = facts_of(*vn);
    if (!selected_by(cluster_selector, node, "clusterSelector")) continue;
    if (spec.selected_clusters && !selected_by(*spec.selected_clusters, node, "selectedClusters")) {
      continue;
    }
    out.nodes.push_back(std::move(node));
  }
  if (out.nodes.empty()) {
    out.reason = "NoClusterSelected";
    out.message =
        "no virtual node matches both the namespace's clusterSelector and selectedClusters";
  }
  return out;
}

Result<std::vector<json>> ReplicationReconciler::list_replicas(const std::string& ns,
                                                               const std::string& name) {
  kube::ListOptions options;
  options.label_selector = std::string(fedapi::kReplicaOfLabel) + "=" + name;
  auto list = host_->list(kube::ResourceRef{kDeployments, ns, "", ""}, options);
  if (!list) return list.error().to_error().with_context("the replicas of " + ns + "/" + name);
  std::vector<json> out;
  const json items = list->value("items", json::array());
  for (const auto& item : items) {
    if (!item["metadata"].contains("deletionTimestamp")) out.push_back(item);
  }
  return out;
}

Result<kube::Requeue> ReplicationReconciler::reconcile(const kube::Request& request) {
  auto object = in_.replications.store().get(request.ns, request.name);
  // Gone: its replicas go with it through their ownerReferences.
  if (!object || (*object)["metadata"].contains("deletionTimestamp")) return kube::Requeue{};
  const json& replication = *object;
  fedapi::DeploymentReplicationStatus status;
  if (replication.contains("status")) {
    auto previous =
        fedapi::decode<fedapi::DeploymentReplicationStatus>(replication["status"], "status");
    if (previous) status = std::move(*previous);
  }
  const fedapi::DeploymentReplicationStatus before = status;
  status.observed_generation = replication["metadata"].value("generation", std::int64_t{0});
  const std::string now = util::format_rfc3339(std::chrono::system_clock::now());
  const auto ready = [&](bool is, std::string reason, std::string message) {
    fedapi::set_condition(status.conditions,
                          {std::string(fedapi::kConditionReplicasAvailable), is ? "True" : "False",
                           std::move(reason), std::move(message), "", status.observed_generation},
                          now);
  };

  // Replicas are left as they are: a typo in the template must not take the application down.
  const auto refused = [&](const Error& error) -> Result<kube::Requeue> {
    refuse(replication, error.message());
    ready(false, "InvalidSpec", error.message());
    if (status != before) FED_TRY(report(replication, std::move(status)));
    return kube::Requeue{};
  };
  auto spec = fedapi::decode<fedapi::DeploymentReplicationSpec>(
      replication.value("spec", json::object()), "spec");
  if (!spec) return refused(spec.error());

  const Eligibility eligible = eligible_nodes(replication, *spec);
  const auto wanted = combinations(eligible.nodes, effective_generation_labels(*spec));
  std::map<std::string, json> desired;  // combination hash -> replica Deployment
  for (const auto& [hash, combination] : wanted) {
    auto replica = replica_deployment(replication, *spec, combination);
    if (!replica) return refused(replica.error());
    desired[hash] = std::move(*replica);
  }

  FED_ASSIGN_OR_RETURN(auto existing, list_replicas(request.ns, request.name));
  auto choice = choose_replicas(existing, desired);
  const kube::ResourceRef collection{kDeployments, request.ns, "", ""};
  for (const auto& [hash, want] : desired) {
    auto kept = choice.keep.find(hash);
    if (kept == choice.keep.end()) {
      auto created = host_->create(collection, want);
      if (!created) return created.error().to_error().with_context("a replica of " + request.name);
      spdlog::info(
          "DeploymentReplication {}: replica {} for {}", to_string(request),
          (*created)["metadata"].value("name", ""),
          want["metadata"]["annotations"].value(std::string(fedapi::kCombinationAnnotation), ""));
      choice.keep[hash] = std::move(*created);
    } else if (replica_outdated(kept->second, want)) {
      const std::string name = kept->second["metadata"].value("name", "");
      auto updated = host_->update(kube::ResourceRef{kDeployments, request.ns, name, ""},
                                   rewritten_replica(kept->second, want));
      if (!updated) return updated.error().to_error().with_context("replica " + name);
      spdlog::info("DeploymentReplication {}: replica {} rewritten", to_string(request), name);
      kept->second = std::move(*updated);
    }
  }
  // Only after every combination has its replica: no moment without one.
  for (const auto& r : choice.surplus) {
    const std::string name = r["metadata"].value("name", "");
    kube::DeleteOptions options;
    options.propagation = kube::Propagation::Background;
    options.precondition_uid = r["metadata"].value("uid", "");
    auto removed = host_->remove(kube::ResourceRef{kDeployments, request.ns, name, ""}, options);
    if (!removed && !removed.error().is_not_found()) {
      return removed.error().to_error().with_context("replica " + name);
    }
    spdlog::info("DeploymentReplication {}: replica {} deleted (its combination is gone)",
                 to_string(request), name);
  }

  status.current_deployment.clear();
  std::vector<std::string> unavailable;
  for (const auto& [hash, replica] : choice.keep) {
    const std::string name = replica["metadata"].value("name", "");
    status.current_deployment[name] = replica_status(replica, wanted.at(hash));
    if (!replica_available(replica)) unavailable.push_back(name);
  }
  if (!eligible.reason.empty()) {
    ready(false, eligible.reason, eligible.message);
  } else if (!unavailable.empty()) {
    std::string names;
    for (const auto& n : unavailable) names += (names.empty() ? "" : ", ") + n;
    ready(false, "ReplicasNotAvailable",
          std::to_string(unavailable.size()) + " of " + std::to_string(choice.keep.size()) +
              " replicas not available yet: " + names);
  } else {
    ready(true, "ReplicasAvailable",
          std::to_string(choice.keep.size()) + " replicas available, one per combination");
  }
  if (status != before) FED_TRY(report(replication, std::move(status)));
  return kube::Requeue{};
}

Status ReplicationReconciler::report(const json& replication,
                                     fedapi::DeploymentReplicationStatus status) {
  json object = replication;
  // The whole status: a replica no longer listed must go, which a merge patch would only do
  // with explicit nulls.
  object["status"] = status;
  const json& meta = replication["metadata"];
  auto r = host_->update_status(
      replication_ref(meta.value("namespace", ""), meta.value("name", "")), object);
  if (!r && !r.error().is_not_found()) {
    return r.error().to_error().with_context("DeploymentReplication status");
  }
  return ok();
}

void ReplicationReconciler::refuse(const json& replication, const std::string& message) {
  const json& meta = replication["metadata"];
  spdlog::warn("DeploymentReplication {}/{}: {}", meta.value("namespace", ""),
               meta.value("name", ""), message);
  if (events_ == nullptr) return;
  events_->record(
      {std::string(fedapi::kApiVersion), std::string(fedapi::kDeploymentReplication.kind),
       meta.value("namespace", ""), meta.value("name", ""), meta.value("uid", "")},
      kube::EventType::Warning, "SpecRefused", message);
}

}  // namespace fed::offload

#pragma once
// The DeploymentReplication controller of spec 001 §2.5 (the thesis' LiqoDeployment
// controller), keyed by the DeploymentReplication:
//  1. the eligible virtual nodes: those the namespace's NamespaceOffloading selects and the
//     replication's selectedClusters (if any) selects too;
//  2. their combinations of the generation labels' values (replica_plan.hpp);
//  3. one replica Deployment per combination, created before any replica is deleted, so a
//     change of granularity or filter never leaves the application without replicas;
//  4. replicas whose combination is gone, duplicates and stale selectors deleted;
//  5. the status: per replica its combination and last condition, and Ready.
// Re-evaluated when a virtual node joins, leaves or changes labels, when the namespace's
// offloading changes and when a replica changes or is deleted (it is recreated). Replicas are
// owned by the DeploymentReplication, so deleting it deletes them (garbage collection).
// The replicas are listed from the API server, not a cache: a replica is created with a
// generated name, and a stale cache would make a second one.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/deployment_replication.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/event_recorder.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"
#include "shared/offload/node_selector_match.hpp"

namespace fed::offload {

struct ReplicationInformers {
  kube::Informer& replications;   // DeploymentReplications, every namespace
  kube::Informer& offloadings;    // NamespaceOffloadings, every namespace
  kube::Informer& virtual_nodes;  // Nodes labelled kubectl-fed.io/type=virtual-node
};

class ReplicationReconciler final : public kube::Reconciler {
 public:
  // `events` (may be null) gets a Warning SpecRefused for a spec no replica can be made of.
  ReplicationReconciler(std::shared_ptr<kube::DynamicClient> host, ReplicationInformers informers,
                        kube::EventRecorder* events = nullptr);

  // Requests are namespace/name of DeploymentReplications.
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // The label selector of the replicas' informer.
  static std::string replica_selector();
  // Event mappers: a replica -> its DeploymentReplication (the replica-of label); a
  // NamespaceOffloading -> the replications of its namespace; a virtual node -> every one.
  static std::vector<kube::Request> owner_of_replica(const nlohmann::json& deployment);
  std::vector<kube::Request> replications_in_namespace(const nlohmann::json& offloading) const;
  std::vector<kube::Request> every_replication(const nlohmann::json& ignored) const;

 private:
  struct Eligibility {
    std::vector<NodeFacts> nodes;  // the eligible virtual nodes' names and labels
    std::string reason, message;   // why there are none (empty when there are)
  };
  Eligibility eligible_nodes(const nlohmann::json& replication,
                             const fedapi::DeploymentReplicationSpec& spec) const;
  Result<std::vector<nlohmann::json>> list_replicas(const std::string& ns, const std::string& name);
  Status report(const nlohmann::json& replication, fedapi::DeploymentReplicationStatus status);
  void refuse(const nlohmann::json& replication, const std::string& message);

  std::shared_ptr<kube::DynamicClient> host_;
  ReplicationInformers in_;
  kube::EventRecorder* events_;
};

}  // namespace fed::offload

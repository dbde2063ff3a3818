#pragma once
// What a DeploymentReplication asks for (spec 001 §2.5, the derived algorithm): the
// combinations of its generation labels' values among the eligible virtual nodes, and for each
// the replica Deployment, pinned to that combination's virtual nodes. Which existing replica
// to keep, update or delete, and the status entry of a replica. Pure.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/deployment_replication.hpp"
#include "shared/offload/node_selector_match.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

// The generation labels in force: the given ones, or the member's cluster id (one replica per
// member) when none are given.
std::vector<std::string> effective_generation_labels(const fedapi::DeploymentReplicationSpec& spec);

// The distinct combinations among `eligible`, keyed by combination_hash(). A node without one
// of the labels contributes a combination where that label is absent (DoesNotExist).
std::map<std::string, fedapi::Combination> combinations(const std::vector<NodeFacts>& eligible,
                                                        const std::vector<std::string>& labels);

// 8 hex digits of FNV-1a over the combination's canonical JSON: the replica's label value.
std::string combination_hash(const fedapi::Combination& combination);

// The label values of a combination as the status lists them (absent labels left out).
std::map<std::string, std::string> label_values(const fedapi::Combination& combination);

// The replica Deployment for `combination` of `replication` (the object: name, namespace, uid):
// generateName <name>-, the template's labels and annotations plus the replica-of and
// combination labels (also added to the selector and the pod template, so that replicas never
// select each other's pods), the combination and spec-hash annotations, a controller
// ownerReference, and the pod template's required node affinity intersected with
// (label In [value] | label DoesNotExist for each generation label) ∧ type In [virtual-node],
// plus the virtual-node toleration. Invalid when the template's affinity matches no node.
Result<nlohmann::json> replica_deployment(const nlohmann::json& replication,
                                          const fedapi::DeploymentReplicationSpec& spec,
                                          const fedapi::Combination& combination);

// Among the existing replicas (Deployments labelled replica-of), per combination hash: the one
// to keep (the oldest whose selector equals `desired` selector, if any) and the rest to delete.
struct ReplicaChoice {
  std::map<std::string, nlohmann::json> keep;  // combination hash -> replica
  std::vector<nlohmann::json> surplus;         // duplicates, stale selectors, gone combinations
};
ReplicaChoice choose_replicas(const std::vector<nlohmann::json>& existing,
                              const std::map<std::string, nlohmann::json>& desired_by_hash);

// Whether `existing` must be rewritten to become `desired` (their spec-hash annotations
// differ), and the object to PUT: `existing` with the desired labels, annotations and spec.
bool replica_outdated(const nlohmann::json& existing, const nlohmann::json& desired);
nlohmann::json rewritten_replica(const nlohmann::json& existing, const nlohmann::json& desired);

// The status entry of a replica: its combination and its most recently updated condition.
fedapi::ReplicaStatus replica_status(const nlohmann::json& replica,
                                     const fedapi::Combination& combination);

// Whether the replica's Deployment reports Available=True for its current generation.
bool replica_available(const nlohmann::json& replica);

}  // namespace fed::offload

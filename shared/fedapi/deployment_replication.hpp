#pragma once
// DeploymentReplication (spec 001 §2.5, the thesis' LiqoDeployment): one Deployment replica in
// the host namespace per combination of the generationLabels' values among the eligible
// virtual nodes, each pinned to the virtual nodes of its combination, so the namespace's
// offloading runs it on those members. Eligible: the virtual nodes that the namespace's
// NamespaceOffloading selects and `selectedClusters` (if given) selects too. The status maps
// each replica's name to its combination and the replica's last Deployment condition.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/node_selector.hpp"

namespace fed::fedapi {

// With no generationLabels a replica stands for one member: node granularity, keyed by the
// virtual node's cluster-id label (one virtual node per member).
inline constexpr std::string_view kReplicaOfLabel = "kubectl-fed.io/replica-of";
inline constexpr std::string_view kCombinationLabel = "kubectl-fed.io/combination";
// On a replica: its combination as JSON ({"label": "value"}; a label absent from the
// combination's nodes is not listed) and the hash of the spec it was last written from.
inline constexpr std::string_view kCombinationAnnotation = "kubectl-fed.io/combination";
inline constexpr std::string_view kReplicaSpecHashAnnotation = "kubectl-fed.io/replica-spec-hash";

// A combination: for each generation label, the value every node of the combination has, or
// nullopt when those nodes lack the label.
using Combination = std::map<std::string, std::optional<std::string>>;

struct DeploymentReplicationSpec {
  nlohmann::json template_metadata = nlohmann::json::object();  // labels and annotations only
  nlohmann::json template_spec = nlohmann::json::object();      // an apps/v1 DeploymentSpec
  std::vector<std::string> generation_labels;
  std::optional<NodeSelector> selected_clusters;

  friend bool operator==(const DeploymentReplicationSpec&,
                         const DeploymentReplicationSpec&) = default;
};

struct ReplicaStatus {
  std::map<std::string, std::string> generation_labels_values;
  nlohmann::json deployment_last_condition;  // the replica's newest condition, or null

  friend bool operator==(const ReplicaStatus&, const ReplicaStatus&) = default;
};

// Condition type of the status: True when every combination has a replica that is Available.
inline constexpr std::string_view kConditionReplicasAvailable = "Ready";

struct DeploymentReplicationStatus {
  std::map<std::string, ReplicaStatus> current_deployment;  // replica name -> entry
  std::vector<Condition> conditions;
  std::int64_t observed_generation = 0;

  friend bool operator==(const DeploymentReplicationStatus&,
                         const DeploymentReplicationStatus&) = default;
};

// from_json throws FieldError naming the field (template without spec.selector or
// spec.template, a generation label given twice or empty); call through decode().
void to_json(nlohmann::json& j, const DeploymentReplicationSpec& spec);
void from_json(const nlohmann::json& j, DeploymentReplicationSpec& spec);
void to_json(nlohmann::json& j, const ReplicaStatus& status);
void from_json(const nlohmann::json& j, ReplicaStatus& status);
void to_json(nlohmann::json& j, const DeploymentReplicationStatus& status);
void from_json(const nlohmann::json& j, DeploymentReplicationStatus& status);

}  // namespace fed::fedapi

#pragma once
// What `kubectl fed replicate` decides and says about a DeploymentReplication: whether a write
// is needed, the warnings of a replication that will have no replica or will not be split as
// asked, whether --wait is done, and the result it prints (replicas from status.currentDeployment).
// Pure: the callers fetch the objects.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "plugin/manifests/apply.hpp"

namespace fed::plugin {

// Created when `live` is absent. Unchanged only when the live spec decodes to the desired one
// and the desired labels are there: apply's covers() alone would call a replication unchanged
// after a --generation-label or --selector was dropped. Configured otherwise.
ApplyOutcome replication_outcome(const std::optional<nlohmann::json>& live,
                                 const nlohmann::json& desired);

// The warning when `ns` has no NamespaceOffloading: the replication has no replica until then.
std::string no_offloading_warning(const std::string& ns);

// The warning when `labels` is not empty and no node of `virtual_nodes` (a NodeList) carries
// every one of them; "" otherwise.
std::string generation_label_warning(const nlohmann::json& virtual_nodes,
                                     const std::vector<std::string>& labels);

// --wait is done: the manager has seen the current spec (status.observedGeneration >=
// metadata.generation) and the Ready condition is True.
bool replication_ready(const nlohmann::json& replication);

// Why not yet, for progress and the timeout's message: the Ready condition's message, or that
// the manager has not seen this spec yet.
std::string replication_waiting_reason(const nlohmann::json& replication);

// The replicas known to be Available, by name: from the replica Deployments themselves when
// they could be listed; nullopt leaves it to each status entry's last condition, which is only
// the newest one (often Progressing) and so says less.
using AvailableReplicas = std::optional<std::set<std::string>>;

// The Deployments of `deployments` (a DeploymentList) whose Available condition is True for
// their current generation.
std::set<std::string> available_deployments(const nlohmann::json& deployments);

// replicate's -o json/yaml document: {name, namespace, result, replicas: [{name,
// generationLabelsValues, available}], warnings}, replicas from status.currentDeployment.
nlohmann::json replicate_result(const nlohmann::json& replication, ApplyOutcome outcome,
                                const std::vector<std::string>& warnings,
                                const AvailableReplicas& available);

// One row per replica: REPLICA, COMBINATION (k=v,...), AVAILABLE, LAST CONDITION.
Table replicas_table(const nlohmann::json& replication, const AvailableReplicas& available);

}  // namespace fed::plugin

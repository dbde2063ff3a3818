#include "plugin/replicate/replication_report.hpp"

#include "shared/fedapi/deployment_replication.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/kube/label_selector.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

// The status as the API types read it; empty when there is none or it cannot be read.
fedapi::DeploymentReplicationStatus replication_status(const json& replication) {
  if (!replication.is_object()) return {};
  return fedapi::decode<fedapi::DeploymentReplicationStatus>(
             replication.value("status", json::object()), "status")
      .value_or(fedapi::DeploymentReplicationStatus{});
}

std::int64_t generation_of(const json& replication) {
  if (!replication.is_object()) return 0;
  return replication.value("metadata", json::object()).value("generation", std::int64_t{0});
}

std::string combination_text(const fedapi::ReplicaStatus& entry) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : entry.generation_labels_values)
    parts.push_back(key + "=" + value);
  return parts.empty() ? "-" : util::join(parts, ",");
}

bool is_available(const std::string& name, const fedapi::ReplicaStatus& entry,
                  const AvailableReplicas& available) {
  if (available) return available->contains(name);
  const json& c = entry.deployment_last_condition;
  return c.is_object() && c.value("type", "") == "Available" && c.value("status", "") == "True";
}

std::string condition_text(const fedapi::ReplicaStatus& entry) {
  const json& c = entry.deployment_last_condition;
  if (!c.is_object() || c.empty()) return "-";
  std::string text = c.value("type", "?") + "=" + c.value("status", "?");
  if (!c.value("reason", "").empty()) text += " " + c.value("reason", "");
  return text;
}

}  // namespace

ApplyOutcome replication_outcome(const std::optional<json>& live, const json& desired) {
  const ApplyOutcome outcome = plan_outcome(live, desired);
  if (outcome != ApplyOutcome::Unchanged) return outcome;
  using Spec = fedapi::DeploymentReplicationSpec;
  auto have = fedapi::decode<Spec>(live->value("spec", json::object()), "spec");
  auto want = fedapi::decode<Spec>(desired.value("spec", json::object()), "spec");
  return have && want && *have == *want ? ApplyOutcome::Unchanged : ApplyOutcome::Configured;
}

std::string no_offloading_warning(const std::string& ns) {
  return "namespace " + ns +
         " is not offloaded: the replication has no replica until it is (kubectl fed offload "
         "namespace " +
         ns + ")";
}

std::string generation_label_warning(const json& virtual_nodes,
                                     const std::vector<std::string>& labels) {
  if (labels.empty()) return "";
  const json items = virtual_nodes.value("items", json::array());
  for (const auto& node : items) {
    const kube::Labels have = kube::labels_of(node);
    bool all = true;
    for (const auto& key : labels) all = all && have.contains(key);
    if (all) return "";
  }
  return "no virtual node carries every generation label (" + util::join(labels, ", ") + "; " +
         std::to_string(items.size()) +
         " virtual nodes): the replicas cannot be split by all of them; compare with kubectl "
         "get nodes -l " +
         std::string(fedapi::kTypeLabel) + "=" + std::string(fedapi::kTypeVirtualNode) +
         " --show-labels";
}

bool replication_ready(const json& replication) {
  if (!replication.is_object()) return false;
  const auto status = replication_status(replication);
  if (status.observed_generation < generation_of(replication)) return false;
  const fedapi::Condition* ready =
      fedapi::find_condition(status.conditions, fedapi::kConditionReplicasAvailable);
  return ready != nullptr && ready->status == "True";
}

std::string replication_waiting_reason(const json& replication) {
  const auto status = replication_status(replication);
  const auto observed = status.observed_generation;
  if (observed < generation_of(replication)) {
    return "the manager has not seen generation " + std::to_string(generation_of(replication)) +
           " yet (observed " + std::to_string(observed) + ")";
  }
  const fedapi::Condition* ready =
      fedapi::find_condition(status.conditions, fedapi::kConditionReplicasAvailable);
  if (ready == nullptr) return "no Ready condition yet";
  const std::string& why = ready->message.empty() ? ready->reason : ready->message;
  return "Ready " + (ready->status.empty() ? std::string("Unknown") : ready->status) +
         (why.empty() ? "" : ": " + why);
}

std::set<std::string> available_deployments(const json& deployments) {
  std::set<std::string> out;
  for (const auto& d : deployments.value("items", json::array())) {
    const json meta = d.value("metadata", json::object());
    const json status = d.value("status", json::object());
    // An Available written for an older spec says nothing about this one.
    if (status.value("observedGeneration", std::int64_t{0}) <
        meta.value("generation", std::int64_t{0})) {
      continue;
    }
    for (const auto& c : status.value("conditions", json::array())) {
      if (c.value("type", "") == "Available" && c.value("status", "") == "True") {
        out.insert(meta.value("name", ""));
      }
    }
  }
  return out;
}

json replicate_result(const json& replication, ApplyOutcome outcome,
                      const std::vector<std::string>& warnings,
                      const AvailableReplicas& available) {
  const json metadata = replication.value("metadata", json::object());
  json replicas = json::array();
  for (const auto& [name, entry] : replication_status(replication).current_deployment) {
    replicas.push_back({{"name", name},
                        {"generationLabelsValues", entry.generation_labels_values},
                        {"available", is_available(name, entry, available)}});
  }
  return json{{"name", metadata.value("name", "")},
              {"namespace", metadata.value("namespace", "")},
              {"result", std::string(to_string(outcome))},
              {"replicas", std::move(replicas)},
              {"warnings", warnings}};
}

Table replicas_table(const json& replication, const AvailableReplicas& available) {
  Table table{{"REPLICA", "COMBINATION", "AVAILABLE", "LAST CONDITION"}, {}};
  for (const auto& [name, entry] : replication_status(replication).current_deployment) {
    table.rows.push_back({name, combination_text(entry),
                          is_available(name, entry, available) ? "True" : "False",
                          condition_text(entry)});
  }
  return table;
}

}  // namespace fed::plugin

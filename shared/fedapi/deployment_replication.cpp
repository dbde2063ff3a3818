#include "shared/fedapi/deployment_replication.hpp"

#include <set>

#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {

void to_json(nlohmann::json& j, const DeploymentReplicationSpec& spec) {
  j = nlohmann::json::object();
  nlohmann::json tmpl = nlohmann::json::object();
  if (!spec.template_metadata.empty()) tmpl["metadata"] = spec.template_metadata;
  tmpl["spec"] = spec.template_spec;
  j["template"] = std::move(tmpl);
  if (!spec.generation_labels.empty()) j["generationLabels"] = spec.generation_labels;
  if (spec.selected_clusters) j["selectedClusters"] = *spec.selected_clusters;
}

void from_json(const nlohmann::json& j, DeploymentReplicationSpec& spec) {
  const nlohmann::json tmpl = read_object(j, "template");
  const nlohmann::json meta = within("template", [&] { return read_object(tmpl, "metadata"); });
  spec.template_metadata = nlohmann::json::object();
  // A replica's name, namespace and owner are the controller's; only these two are copied.
  for (const char* key : {"labels", "annotations"}) {
    const auto values = within("template.metadata", [&] { return read_string_map(meta, key); });
    if (!values.empty()) spec.template_metadata[key] = values;
  }
  spec.template_spec = within("template", [&] { return read_object(tmpl, "spec"); });
  if (spec.template_spec.empty()) {
    throw FieldError("template.spec: is required (a Deployment's spec: selector and template)");
  }
  if (!spec.template_spec.contains("selector") || !spec.template_spec["selector"].is_object()) {
    throw FieldError("template.spec.selector: is required (the Deployment's label selector)");
  }
  if (!spec.template_spec.contains("template") || !spec.template_spec["template"].is_object()) {
    throw FieldError("template.spec.template: is required (the pod template)");
  }
  spec.generation_labels = read_string_list(j, "generationLabels");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < spec.generation_labels.size(); ++i) {
    const auto& label = spec.generation_labels[i];
    const std::string at = "generationLabels[" + std::to_string(i) + "]";
    if (label.empty()) throw FieldError(at + ": must not be empty");
    if (!seen.insert(label).second) throw FieldError(at + ": " + label + " is listed twice");
  }
  spec.selected_clusters.reset();
  if (j.contains("selectedClusters") && !j["selectedClusters"].is_null()) {
    spec.selected_clusters = within(
        "selectedClusters", [&] { return read_object(j, "selectedClusters").get<NodeSelector>(); });
  }
}

void to_json(nlohmann::json& j, const ReplicaStatus& status) {
  j = nlohmann::json::object();
  j["generationLabelsValues"] = status.generation_labels_values;
  if (!status.deployment_last_condition.is_null()) {
    j["deploymentLastCondition"] = status.deployment_last_condition;
  }
}

void from_json(const nlohmann::json& j, ReplicaStatus& status) {
  status.generation_labels_values = read_string_map(j, "generationLabelsValues");
  status.deployment_last_condition = nullptr;
  if (j.contains("deploymentLastCondition") && j["deploymentLastCondition"].is_object()) {
    status.deployment_last_condition = j["deploymentLastCondition"];
  }
}

void to_json(nlohmann::json& j, const DeploymentReplicationStatus& status) {
  j = nlohmann::json::object();
  if (!status.current_deployment.empty()) j["currentDeployment"] = status.current_deployment;
  write_conditions(j, status.conditions);
  write_int(j, "observedGeneration", status.observed_generation);
}

void from_json(const nlohmann::json& j, DeploymentReplicationStatus& status) {
  status.current_deployment.clear();
  const nlohmann::json current = read_object(j, "currentDeployment");
  for (const auto& item : current.items()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda (the fuzz preset).
    const nlohmann::json& entry = item.value();
    status.current_deployment[item.key()] =
        within("currentDeployment." + item.key(), [&] { return entry.get<ReplicaStatus>(); });
  }
  status.conditions = read_conditions(j);
  status.observed_generation = read_int(j, "observedGeneration");
}

}  // namespace fed::fedapi

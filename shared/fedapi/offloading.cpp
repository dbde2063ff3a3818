#include "shared/fedapi/offloading.hpp"

#include "shared/fedapi/enum_table.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

constexpr EnumTable<NamespaceMappingStrategy, 3> kMappingStrategies{{
    {NamespaceMappingStrategy::DefaultName, "DefaultName"},
    {NamespaceMappingStrategy::EnforceSameName, "EnforceSameName"},
    {NamespaceMappingStrategy::SelectedName, "SelectedName"},
}};
constexpr EnumTable<PodOffloadingStrategy, 3> kPodStrategies{{
    {PodOffloadingStrategy::LocalAndRemote, "LocalAndRemote"},
    {PodOffloadingStrategy::Local, "Local"},
    {PodOffloadingStrategy::Remote, "Remote"},
}};
constexpr EnumTable<OffloadingPhase, 6> kPhases{{
    {OffloadingPhase::Ready, "Ready"},
    {OffloadingPhase::NoClusterSelected, "NoClusterSelected"},
    {OffloadingPhase::InProgress, "InProgress"},
    {OffloadingPhase::SomeFailed, "SomeFailed"},
    {OffloadingPhase::AllFailed, "AllFailed"},
    {OffloadingPhase::Terminating, "Terminating"},
}};

}  // namespace

std::string_view to_string(NamespaceMappingStrategy s) {
  return enum_name(kMappingStrategies, s);
}
std::string_view to_string(PodOffloadingStrategy s) {
  return enum_name(kPodStrategies, s);
}
std::string_view to_string(OffloadingPhase p) {
  return enum_name(kPhases, p);
}

NodeSelector default_cluster_selector() {
  NodeSelectorTerm term;
  term.match_expressions.push_back(
      {std::string(kTypeLabel), NodeSelectorOperator::In, {std::string(kTypeVirtualNode)}});
  return NodeSelector{{term}};
}

NodeSelector NamespaceOffloadingSpec::effective_cluster_selector() const {
  return cluster_selector ? *cluster_selector : default_cluster_selector();
}

void to_json(nlohmann::json& j, const NamespaceOffloadingSpec& spec) {
  j = nlohmann::json::object();
  j["namespaceMappingStrategy"] = std::string(to_string(spec.namespace_mapping_strategy));
  write_string(j, "remoteNamespaceName", spec.remote_namespace_name);
  j["podOffloadingStrategy"] = std::string(to_string(spec.pod_offloading_strategy));
  if (spec.cluster_selector) j["clusterSelector"] = *spec.cluster_selector;
}

void from_json(const nlohmann::json& j, NamespaceOffloadingSpec& spec) {
  const auto mapping = read_string(j, "namespaceMappingStrategy");
  spec.namespace_mapping_strategy =
      mapping.empty() ? NamespaceMappingStrategy::DefaultName
                      : enum_from_name(kMappingStrategies, "namespaceMappingStrategy", mapping);
  spec.remote_namespace_name = read_string(j, "remoteNamespaceName");
  const bool selected = spec.namespace_mapping_strategy == NamespaceMappingStrategy::SelectedName;
  if (selected && spec.remote_namespace_name.empty()) {
    throw FieldError("remoteNamespaceName: is required with namespaceMappingStrategy SelectedName");
  }
  if (!selected && !spec.remote_namespace_name.empty()) {
    throw FieldError(
        "remoteNamespaceName: is only allowed with namespaceMappingStrategy "
        "SelectedName (remove it or choose SelectedName)");
  }
  const auto pods = read_string(j, "podOffloadingStrategy");
  spec.pod_offloading_strategy =
      pods.empty() ? PodOffloadingStrategy::LocalAndRemote
                   : enum_from_name(kPodStrategies, "podOffloadingStrategy", pods);
  spec.cluster_selector.reset();
  if (j.contains("clusterSelector") && !j["clusterSelector"].is_null()) {
    spec.cluster_selector = within(
        "clusterSelector", [&] { return read_object(j, "clusterSelector").get<NodeSelector>(); });
  }
}

void to_json(nlohmann::json& j, const NamespaceOffloadingStatus& status) {
  j = nlohmann::json::object();
  write_string(j, "remoteNamespaceName", status.remote_namespace_name);
  if (status.offloading_phase)
    j["offloadingPhase"] = std::string(to_string(*status.offloading_phase));
  if (!status.remote_namespaces_conditions.empty()) {
    auto& by_cluster = j["remoteNamespacesConditions"] = nlohmann::json::object();
    for (const auto& [cluster, conditions] : status.remote_namespaces_conditions) {
      by_cluster[cluster] = conditions;
    }
  }
  write_conditions(j, status.conditions);
  write_int(j, "observedGeneration", status.observed_generation);
}

void from_json(const nlohmann::json& j, NamespaceOffloadingStatus& status) {
  status.remote_namespace_name = read_string(j, "remoteNamespaceName");
  const auto phase = read_string(j, "offloadingPhase");
  status.offloading_phase.reset();
  if (!phase.empty()) status.offloading_phase = enum_from_name(kPhases, "offloadingPhase", phase);
  status.remote_namespaces_conditions.clear();
  const nlohmann::json by_cluster = read_object(j, "remoteNamespacesConditions");
  for (const auto& item : by_cluster.items()) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda (the fuzz preset).
    const std::string& cluster = item.key();
    const nlohmann::json& list = item.value();
    status.remote_namespaces_conditions[cluster] =
        within("remoteNamespacesConditions." + cluster, [&] {
          return read_conditions(nlohmann::json{{"conditions", list}});
        });
  }
  status.conditions = read_conditions(j);
  status.observed_generation = read_int(j, "observedGeneration");
}

}  // namespace fed::fedapi

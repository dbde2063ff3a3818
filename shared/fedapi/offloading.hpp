#pragma once
// NamespaceOffloading (spec 001 §2.2): one per offloaded namespace, named "offloading", in that
// namespace. The spec says how remote namespaces are named, where the namespace's pods may run
// and which member clusters (virtual nodes) are targeted; the status is the per-cluster view the
// OffloadingStatus controller aggregates from the NamespaceMaps.

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

// The only name a NamespaceOffloading may have (the CRD refuses others).
inline constexpr std::string_view kNamespaceOffloadingName = "offloading";
// Namespace label shortcut: a namespace labelled so gets the default NamespaceOffloading.
inline constexpr std::string_view kEnabledLabel = "kubectl-fed.io/enabled";
// Every virtual node carries kTypeLabel=kTypeVirtualNode; the default clusterSelector selects it.
inline constexpr std::string_view kTypeLabel = "kubectl-fed.io/type";
inline constexpr std::string_view kTypeVirtualNode = "virtual-node";
// The nodes with a kubelet: what node-level work (kubelet reconfiguration) must list.
inline constexpr std::string_view kRealNodesSelector = "kubectl-fed.io/type!=virtual-node";
// The taint of every virtual node (spec 001 §1.3: one taint for all, value true, NoExecute).
inline constexpr std::string_view kVirtualNodeTaintKey = "virtual-node.kubectl-fed.io/not-allowed";
inline constexpr std::string_view kVirtualNodeTaintValue = "true";
inline constexpr std::string_view kVirtualNodeTaintEffect = "NoExecute";

enum class NamespaceMappingStrategy { DefaultName, EnforceSameName, SelectedName };
enum class PodOffloadingStrategy { LocalAndRemote, Local, Remote };
// InProgress is not in the thesis' table (upstream Liqo has it): selected members that have
// not reported their replica yet, and none has failed.
enum class OffloadingPhase {
  Ready,
  NoClusterSelected,
  InProgress,
  SomeFailed,
  AllFailed,
  Terminating
};

std::string_view to_string(NamespaceMappingStrategy s);
std::string_view to_string(PodOffloadingStrategy s);
std::string_view to_string(OffloadingPhase p);

// The clusterSelector used when the spec has none: every virtual node.
NodeSelector default_cluster_selector();

struct NamespaceOffloadingSpec {
  NamespaceMappingStrategy namespace_mapping_strategy = NamespaceMappingStrategy::DefaultName;
  std::string remote_namespace_name;  // SelectedName only: the remote name on every cluster
  PodOffloadingStrategy pod_offloading_strategy = PodOffloadingStrategy::LocalAndRemote;
  std::optional<NodeSelector> cluster_selector;  // nullopt: default_cluster_selector()

  // The selector in force: the given one or the default.
  NodeSelector effective_cluster_selector() const;
  friend bool operator==(const NamespaceOffloadingSpec&, const NamespaceOffloadingSpec&) = default;
};

// Condition types of remoteNamespacesConditions.
inline constexpr std::string_view kConditionReady = "Ready";
inline constexpr std::string_view kConditionOffloadingRequired = "OffloadingRequired";

struct NamespaceOffloadingStatus {
  std::string remote_namespace_name;  // the resolved name (all clusters share it)
  std::optional<OffloadingPhase> offloading_phase;
  // cluster id -> Ready / OffloadingRequired conditions of the namespace there.
  std::map<std::string, std::vector<Condition>> remote_namespaces_conditions;
  // Accepted False (reason SpecRefused) while the manager cannot offload under the spec (its
  // remote name is not a valid namespace name), empty otherwise.
  std::vector<Condition> conditions;
  std::int64_t observed_generation = 0;

  friend bool operator==(const NamespaceOffloadingStatus&,
                         const NamespaceOffloadingStatus&) = default;
};

// Enums are written by name; absent strategies read as their defaults. from_json throws
// FieldError naming the field (unknown strategy, SelectedName without remoteNamespaceName);
// call through decode().
void to_json(nlohmann::json& j, const NamespaceOffloadingSpec& spec);
void from_json(const nlohmann::json& j, NamespaceOffloadingSpec& spec);
void to_json(nlohmann::json& j, const NamespaceOffloadingStatus& status);
void from_json(const nlohmann::json& j, NamespaceOffloadingStatus& status);

}  // namespace fed::fedapi

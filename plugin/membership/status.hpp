#pragma once
// kubectl fed status: the federation as the host sees it — its own identity, per member the
// FederatedCluster's conditions, networks and remappings and the tunnel state from the host's
// Peering of that member, and per offloaded namespace its phase and replicas.

#include "plugin/cli/command.hpp"

namespace fed::plugin {

struct StatusOptions {};

// The status document printed for -o json|yaml, built from the host's federation ConfigMap
// data, its FederatedClusters, its Peerings and its NamespaceOffloadings (lists). Pure.
nlohmann::json status_document(const nlohmann::json& federation_data,
                               const nlohmann::json& federated_clusters,
                               const nlohmann::json& peerings,
                               const nlohmann::json& offloadings = nlohmann::json::object());

// The tables printed by default, from status_document(): members, and offloaded namespaces
// (namespace, phase, remote name, each selected member's replica state).
Table status_table(const nlohmann::json& document);
Table offloadings_table(const nlohmann::json& document);

Status run_status(const GlobalOptions& global, const StatusOptions& options, Output& out);

// The command table entry.
extern const Command kStatusCommand;

}  // namespace fed::plugin

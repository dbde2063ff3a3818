#pragma once
// The names every side of the federation agrees on: where the product's objects live on each
// cluster, the ConfigMaps a cluster describes itself with, and the gateway node's label. The
// manifests (manifests/) spell the same names; these are the only C++ spelling.

#include <string_view>

namespace fed::fedapi {

// The namespace of the manager, the agents and every object of the federation on a cluster.
inline constexpr std::string_view kNamespace = "kubectl-fed-system";
// What `init`/`join` write about the cluster (its id, role, networks): docs/JOIN.md.
inline constexpr std::string_view kFederationConfigMap = "federation";
// What the gateway's node agent publishes (its address and tunnel key).
inline constexpr std::string_view kGatewayConfigMap = "gateway";
// What the elected manager publishes about its leadership (holder, host, epoch): docs/HA.md.
inline constexpr std::string_view kLeaderConfigMap = "fed-leader";
// On the node that carries the cluster's gateway ("true").
inline constexpr std::string_view kGatewayLabel = "kubectl-fed.io/gateway";

}  // namespace fed::fedapi

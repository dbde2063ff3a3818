#pragma once
// The owner's consent to reflect a namespace's ConfigMaps, Secrets and ServiceAccounts: a
// RoleBinding in the offloaded namespace that gives the manager's ServiceAccount ClusterRole
// kReflectionRole (read those kinds) there and nowhere else. `kubectl fed offload` creates it
// with the caller's rights and `unoffload` removes it; the manager never holds these rights
// cluster-wide (agent/manager/offload/reflection/config_reflector.hpp). Pure.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fed::offload {

inline constexpr std::string_view kReflectionRole = "kubectl-fed:manager-reflection";
inline constexpr std::string_view kReflectionBinding = "kubectl-fed:manager-reflection";

// The RoleBinding kReflectionBinding in `ns` for ServiceAccount fed-manager of
// kubectl-fed-system.
nlohmann::json reflection_grant(const std::string& ns);

}  // namespace fed::offload

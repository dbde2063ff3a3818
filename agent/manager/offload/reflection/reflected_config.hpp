#pragma once
// What pods of an offloaded namespace are configured with — ConfigMaps, Secrets and
// ServiceAccounts — and their twins on a member (spec 001 §1.2), as pure functions: a pod's twin
// mounts, reads and runs as them by the same names in its replica. Not reflected: the ConfigMap
// kube-root-ca.crt and the ServiceAccount default (every namespace has its own, from its own
// cluster) and service-account token Secrets (tokens of the host's API server mean nothing on
// a member).

#include <array>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/reflection/reflected_pod.hpp"

namespace fed::offload {

enum class PodConfigKind { ConfigMap, Secret, ServiceAccount };
inline constexpr PodConfigKind kPodConfigKinds[] = {PodConfigKind::ConfigMap, PodConfigKind::Secret,
                                                    PodConfigKind::ServiceAccount};

// "configmaps" / "secrets" / "serviceaccounts".
std::string_view resource_of(PodConfigKind kind);
// "ConfigMap" / "Secret" / "ServiceAccount".
std::string_view kind_name(PodConfigKind kind);
// The fields a twin copies whole besides metadata.
inline constexpr std::array<std::string_view, 6> kPodConfigFields = {
    "data", "binaryData", "type", "immutable", "automountServiceAccountToken", "imagePullSecrets"};

// Whether the host object `object` of `kind` is reflected.
bool reflected_config(const nlohmann::json& object, PodConfigKind kind);

// The twin in target.remote_namespace: the same name and kPodConfigFields; the host object's
// labels with the origin labels; its annotations but kubectl's last-applied-configuration.
nlohmann::json twin_config(const nlohmann::json& object, PodConfigKind kind,
                           const TwinTarget& target);

}  // namespace fed::offload

#pragma once
// ConfigMaps and Secrets of an offloaded namespace and their twins on a member (spec 001 §1.2),
// as pure functions: a pod's twin mounts and reads them by the same names in its replica. Not
// reflected: the ConfigMap kube-root-ca.crt (every namespace has its own, from its own cluster)
// and service-account token Secrets (tokens of the host's API server mean nothing on a member).

#include <string_view>

#include <nlohmann/json.hpp>

#include "offload/reflected_pod.hpp"

namespace fed::offload {

enum class ConfigKind { ConfigMap, Secret };

// "configmaps" / "secrets".
std::string_view resource_of(ConfigKind kind);

// Whether the host object `object` of `kind` is reflected.
bool reflected_config(const nlohmann::json& object, ConfigKind kind);

// The twin in target.remote_namespace: the same name, data, binaryData, type (Secrets) and
// immutable; the host object's labels with the origin labels; its annotations but kubectl's
// last-applied-configuration.
nlohmann::json twin_config(const nlohmann::json& object, ConfigKind kind, const TwinTarget& target);

}  // namespace fed::offload

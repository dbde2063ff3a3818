#pragma once
// In-cluster configuration, as client-go's rest.InClusterConfig: the pod's ServiceAccount
// token, CA and namespace, and the API server from KUBERNETES_SERVICE_HOST/PORT.

#include <filesystem>
#include <string_view>

#include "shared/kube/rest_config.hpp"

namespace fed::kube {

inline constexpr std::string_view kServiceAccountDir =
    "/var/run/secrets/kubernetes.io/serviceaccount";

// True when KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are set (we run in a pod).
bool in_cluster_environment();

// Builds a RestConfig from `sa_dir` (token: required, re-read on every request so projected
// token rotation works; ca.crt: used when present; namespace: default "default"). NotFound
// when the environment variables are missing or the token cannot be read.
Result<RestConfig> in_cluster_config(const std::filesystem::path& sa_dir = kServiceAccountDir);

}  // namespace fed::kube

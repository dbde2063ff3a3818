#pragma once
// Turns a kubeconfig context into a RestConfig, checking it the way kubectl does and saying in
// one line what is wrong and how to fix it.

#include <filesystem>

#include "shared/kube/in_cluster.hpp"
#include "shared/kube/kubeconfig.hpp"
#include "shared/kube/rest_config.hpp"

namespace fed::kube {

// Resolves options.context (else current-context) of `config`: reads the CA and client
// certificate files, sets up token, tokenFile or exec credentials, and picks the namespace
// (options.namespace_override, else the context's, else "default"). NotFound when a named
// context, cluster or user does not exist (listing those that do); Invalid for unusable settings.
Result<RestConfig> resolve(const Kubeconfig& config, const LoadOptions& options);

// What kubectl does with --kubeconfig/--context/-n: load_kubeconfig() then resolve(); when no
// kubeconfig file exists (and neither --kubeconfig nor --context was given) but
// KUBERNETES_SERVICE_HOST/PORT are set, in_cluster_config(sa_dir) with -n applied, like client-go.
Result<RestConfig> rest_config_from_flags(const LoadOptions& options,
                                          const std::filesystem::path& sa_dir = kServiceAccountDir);

}  // namespace fed::kube

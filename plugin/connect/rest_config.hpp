#pragma once
// How commands reach a cluster: the global flags turned into a RestConfig, as kubectl would.

#include "plugin/cli/global_options.hpp"
#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Loads the kubeconfig chosen by --kubeconfig/--context/-n (or in-cluster settings) and
// applies --request-timeout. NotFound for a missing context; Invalid for a malformed file.
Result<kube::RestConfig> rest_config_for(const GlobalOptions& global);

}  // namespace fed::plugin

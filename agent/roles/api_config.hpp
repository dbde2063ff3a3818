#pragma once
// How every role reaches its cluster's API server: --kubeconfig/--context when given, else the
// pod's in-cluster ServiceAccount, with the role's user agent (seen in the API server's audit
// log and metrics).

#include <string>

#include "agent/roles/options.hpp"
#include "shared/kube/rest_config.hpp"
#include "shared/result/result.hpp"

namespace fed::agent {

Result<kube::RestConfig> api_config(const AgentOptions& options, std::string user_agent);

}  // namespace fed::agent

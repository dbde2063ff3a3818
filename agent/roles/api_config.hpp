#pragma once
// How every role reaches its cluster's API server: --kubeconfig/--context when given, else the
// pod's in-cluster ServiceAccount, with the role's user agent (seen in the API server's audit
// log and metrics).

#include <string>

#include "kube/rest_config.hpp"
#include "result/result.hpp"
#include "roles/options.hpp"

namespace fed::agent {

Result<kube::RestConfig> api_config(const AgentOptions& options, std::string user_agent);

}  // namespace fed::agent

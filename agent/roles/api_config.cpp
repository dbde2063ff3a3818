#include "agent/roles/api_config.hpp"

#include "shared/kube/kubeconfig_resolve.hpp"

namespace fed::agent {

Result<kube::RestConfig> api_config(const AgentOptions& options, std::string user_agent) {
  kube::LoadOptions load;
  load.kubeconfig_path = options.kubeconfig;
  load.context = options.context;
  FED_ASSIGN_OR_RETURN(auto config, kube::rest_config_from_flags(load));
  config.user_agent = std::move(user_agent);
  return config;
}

}  // namespace fed::agent

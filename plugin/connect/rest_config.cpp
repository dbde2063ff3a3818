#include "plugin/connect/rest_config.hpp"

#include "shared/kube/kubeconfig_resolve.hpp"
#include "shared/util/build_info.hpp"

namespace fed::plugin {

Result<kube::RestConfig> rest_config_for(const GlobalOptions& global) {
  kube::LoadOptions load;
  load.kubeconfig_path = global.kubeconfig;
  load.context = global.context;
  load.namespace_override = global.namespace_name;
  // A hanging credential plugin must not outlast the request it is for.
  if (global.request_timeout.count() > 0 && global.request_timeout < load.exec_timeout) {
    load.exec_timeout = global.request_timeout;
  }
  FED_ASSIGN_OR_RETURN(kube::RestConfig config, kube::rest_config_from_flags(load));
  config.request_timeout = global.request_timeout;
  config.user_agent = "kubectl-fed/" + std::string(build::version());
  return config;
}

}  // namespace fed::plugin

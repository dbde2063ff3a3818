#include "agent/etcdproxy/cli/etcd_proxy_command.hpp"

#include "agent/etcdproxy/etcd_proxy_runner.hpp"

namespace fed::etcdproxy {

int EtcdProxyCommand::run(const agent::AgentOptions& options) {
  auto proxy_options = to_options(flags_);
  if (!proxy_options) {
    return agent::run_role_or_usage(std::move(proxy_options).error(), options);
  }
  return agent::run_role_or_usage(std::unique_ptr<agent::RoleRunner>(
                                      std::make_unique<EtcdProxyRunner>(std::move(*proxy_options))),
                                  options);
}

}  // namespace fed::etcdproxy

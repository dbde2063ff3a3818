#pragma once
// `fed-agent etcd-proxy`: the flags fed-etcd-proxy shares (etcd_proxy_flags.hpp), run as a role.

#include <CLI/CLI.hpp>

#include "agent/etcdproxy/cli/etcd_proxy_flags.hpp"
#include "agent/roles/role_command.hpp"

namespace fed::etcdproxy {

class EtcdProxyCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's etcd-proxy subcommand).
  explicit EtcdProxyCommand(CLI::App& command) { add_etcd_proxy_flags(command, flags_); }
  EtcdProxyCommand(const EtcdProxyCommand&) = delete;
  EtcdProxyCommand& operator=(const EtcdProxyCommand&) = delete;

  // Invalid flags exit 2 naming the flag; otherwise the proxy until a shutdown signal.
  int run(const agent::AgentOptions& options) override;

 private:
  EtcdProxyFlags flags_;
};

}  // namespace fed::etcdproxy

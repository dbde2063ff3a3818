#pragma once
// `fed-agent node`'s flags and the choice among its three modes: the DaemonSet's (datapath from
// the federation's API objects), a state file's (netns tests, debugging), and --uninstall (the
// DaemonSet's cleanup path: remove every trace, then exit).

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "agent/roles/role_command.hpp"

#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/tunnel/tunnel_config.hpp"
#include "agent/roles/options.hpp"
#include "agent/roles/role_runner.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

struct NodeFlags {
  std::string node_name;
  std::string state_file;
  std::string resync_period = "30s";
  bool uninstall = false;
  fabric::DatapathConfig datapath;
  tunnel::TunnelOptions tunnel;  // the gateway's WireGuard (address: from the Peerings)
};

class NodeCommand final : public agent::RoleCommand {
 public:
  // Adds the datapath flags to `node` (fed-agent's node subcommand).
  explicit NodeCommand(CLI::App& node);
  NodeCommand(const NodeCommand&) = delete;
  NodeCommand& operator=(const NodeCommand&) = delete;

  // --uninstall: removes routes, rules, links and chains the agent made, then the gateway
  // tunnel (its link, daemon and socket; the key file stays: it is the gateway's identity); the
  // exit code (0, or 1 with every failure logged). No cluster is needed.
  int run_uninstall(const agent::AgentOptions& common) const;
  // The runner of the selected mode. Invalid names the flag.
  Result<std::unique_ptr<agent::RoleRunner>> runner() const;
  // --uninstall, else the runner of the selected mode until a shutdown signal.
  int run(const agent::AgentOptions& options) override {
    if (flags_.uninstall) return run_uninstall(options);
    return agent::run_role_or_usage(runner(), options);
  }

 private:
  NodeFlags flags_;
};

}  // namespace fed::federation

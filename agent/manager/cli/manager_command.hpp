#pragma once
// `fed-agent manager`'s flags (manifests/manager/deployment.yaml sets them).

#include <CLI/CLI.hpp>

#include "agent/manager/manager_runner.hpp"
#include "agent/roles/role_command.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

class ManagerCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's manager subcommand).
  explicit ManagerCommand(CLI::App& command);
  ManagerCommand(const ManagerCommand&) = delete;
  ManagerCommand& operator=(const ManagerCommand&) = delete;

  // Invalid flags exit 2 naming the flag; otherwise the manager until a shutdown signal.
  int run(const agent::AgentOptions& options) override;

 private:
  // The leader-election flags into options_.election; Invalid names the flag.
  Status apply_election_flags();

  ManagerOptions options_;
  std::string election_endpoints_;
  std::string lease_duration_ = "600ms", renew_deadline_ = "450ms", renew_period_ = "100ms",
              retry_period_ = "50ms";
};

}  // namespace fed::federation

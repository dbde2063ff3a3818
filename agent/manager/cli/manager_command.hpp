#pragma once
// `fed-agent manager`'s flags (manifests/manager/deployment.yaml sets them).

#include <CLI/CLI.hpp>

#include "agent/manager/manager_runner.hpp"
#include "agent/roles/role_command.hpp"

namespace fed::federation {

class ManagerCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's manager subcommand).
  explicit ManagerCommand(CLI::App& command);
  ManagerCommand(const ManagerCommand&) = delete;
  ManagerCommand& operator=(const ManagerCommand&) = delete;

  int run(const agent::AgentOptions& options) override;

 private:
  ManagerOptions options_;
};

}  // namespace fed::federation

#pragma once
// One fed-agent subcommand. agent/main.cpp lists them all in one table (name, help, factory);
// the factory adds the command's flags to its CLI11 subcommand, and once that subcommand is
// chosen main calls run(). A long-running role (node, manager, ...) makes its RoleRunner and hands
// it to run_role(); a one-shot command (reconfigure-node, cni-switch, probe) runs and exits.

#include <memory>

#include "agent/roles/options.hpp"
#include "agent/roles/role_runner.hpp"
#include "shared/result/result.hpp"

namespace CLI {
class App;
}

namespace fed::agent {

class RoleCommand {
 public:
  virtual ~RoleCommand() = default;
  // Runs the chosen command with fed-agent's common flags; returns the process's exit code.
  virtual int run(const AgentOptions& options) = 0;
};

// Makes a command, adding its flags to `subcommand`.
using RoleCommandFactory = std::unique_ptr<RoleCommand> (*)(CLI::App& subcommand);

// For a long-running role: runs `runner` until a shutdown signal (run_role()), or prints the
// error of a runner the flags could not make and returns the usage exit code (2).
int run_role_or_usage(Result<std::unique_ptr<RoleRunner>> runner, const AgentOptions& options);

}  // namespace fed::agent

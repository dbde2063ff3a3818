#pragma once
// `fed-agent probe --listen PORT --id ID [--for D]` | `--dial ADDRESS:PORT [--timeout D]`: one
// end of `kubectl fed join --wait`'s data-path proof, run once in a short-lived pod.

#include <CLI/CLI.hpp>

#include "agent/roles/role_command.hpp"

#include <string>

namespace fed::probe {

class ProbeCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's probe subcommand).
  explicit ProbeCommand(CLI::App& command);
  ProbeCommand(const ProbeCommand&) = delete;
  ProbeCommand& operator=(const ProbeCommand&) = delete;

  // Exit code: 0 served / answered (the answer line on stdout), 1 no answer, 2 bad flags.
  int run(const agent::AgentOptions& options) override;

 private:
  CLI::App* app_;
  int listen_port_ = 0;
  std::string id_ = "probe";
  std::string serve_for_ = "10m";
  std::string dial_;
  std::string timeout_ = "30s";
};

}  // namespace fed::probe

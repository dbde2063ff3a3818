#pragma once
// `fed-agent cni-switch`: one node's CNI switch (reconfig/cni_switch.hpp), run once and exit —
// what `kubectl fed reconfigure --cni-conflist` runs on each node in a pod.

#include <string>

#include <CLI/CLI.hpp>

#include "agent/roles/role_command.hpp"

namespace fed::reconfig {

class CniSwitchCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's cni-switch subcommand).
  explicit CniSwitchCommand(CLI::App& command);
  CniSwitchCommand(const CniSwitchCommand&) = delete;
  CniSwitchCommand& operator=(const CniSwitchCommand&) = delete;

  // 0 installed or removed (or already so), 1 the write failed, 2 bad input (nothing changed).
  int run(const agent::AgentOptions& options) override;

 private:
  CLI::App* app_;
  std::string node_, conf_dir_, conflist_;
  bool rollback_ = false;
};

}  // namespace fed::reconfig

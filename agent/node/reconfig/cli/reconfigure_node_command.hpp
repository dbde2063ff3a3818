#pragma once
// `fed-agent reconfigure-node`: one node's kubelet reconfiguration, run once and exit. It is
// what the node role will run for a FeatureConfig, and what tests and operators drive today.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "agent/roles/role_command.hpp"

#include "agent/roles/options.hpp"

namespace fed::reconfig {

struct ReconfigureNodeFlags {
  std::string node;
  std::vector<std::string> set;
  std::string kubelet_config;      // explicit --config file
  std::string kubelet_config_dir;  // explicit --config-dir: kubectl-fed writes a drop-in there
  std::string distribution;        // a row of the shipped table
  std::string root_dir;            // --root-dir of the kubelet
  std::string restart_method;      // systemd | k3s | command; default from the other flags
  std::string restart_command;     // argv separated by spaces, run without a shell
  std::string service;             // systemd unit
  std::string timeout = "2m";
};

class ReconfigureNodeCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's reconfigure-node subcommand).
  explicit ReconfigureNodeCommand(CLI::App& command);
  ReconfigureNodeCommand(const ReconfigureNodeCommand&) = delete;
  ReconfigureNodeCommand& operator=(const ReconfigureNodeCommand&) = delete;

  // Runs it with fed-agent's common flags (--kubeconfig, --context, logging); the exit code:
  // 0 applied or already applied, 1 rolled back or failed, 2 bad input (nothing changed),
  // 3 the API server or the kubelet was unavailable, 6 another change is unfinished.
  int run(const agent::AgentOptions& common) override;

 private:
  CLI::App* app_;
  ReconfigureNodeFlags flags_;
};

}  // namespace fed::reconfig

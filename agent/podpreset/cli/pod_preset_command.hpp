#pragma once
// `fed-agent podpreset`'s flags (manifests/features/podpreset/deployment.yaml sets them).

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "agent/roles/role_command.hpp"

#include "agent/roles/role_runner.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::podpreset {

class PodPresetCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's podpreset subcommand).
  explicit PodPresetCommand(CLI::App& command);
  PodPresetCommand(const PodPresetCommand&) = delete;
  PodPresetCommand& operator=(const PodPresetCommand&) = delete;

  std::unique_ptr<agent::RoleRunner> runner() const;
  int run(const agent::AgentOptions& options) override {
    return agent::run_role_or_usage(runner(), options);
  }

 private:
  CLI::App* command_;
  std::string bind_address, cert_dir;
  webhook::WebhookCallers callers = webhook::WebhookCallers::Any;
};

}  // namespace fed::podpreset

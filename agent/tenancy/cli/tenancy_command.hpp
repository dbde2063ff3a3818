#pragma once
// `fed-agent tenancy`'s flags (the Deployment `kubectl fed join` renders them from its own
// --namespace-quota, --share-cpu and --share-memory) and their checks.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "agent/roles/role_command.hpp"

#include "agent/roles/role_runner.hpp"
#include "shared/result/result.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::tenancy {

class TenancyCommand final : public agent::RoleCommand {
 public:
  // Adds the flags to `command` (fed-agent's tenancy subcommand).
  explicit TenancyCommand(CLI::App& command);
  TenancyCommand(const TenancyCommand&) = delete;
  TenancyCommand& operator=(const TenancyCommand&) = delete;

  // The runner; Invalid names the flag and the fix.
  Result<std::unique_ptr<agent::RoleRunner>> runner() const;
  int run(const agent::AgentOptions& options) override {
    return agent::run_role_or_usage(runner(), options);
  }

 private:
  CLI::App* command_;
  std::string bind_address, cert_dir, quota, default_request, local_pod_cidr;
  int namespace_quota = 20;
  webhook::WebhookCallers callers = webhook::WebhookCallers::Any;
};

}  // namespace fed::tenancy

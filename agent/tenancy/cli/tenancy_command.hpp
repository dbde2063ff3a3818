#pragma once
// `fed-agent tenancy`'s flags (the Deployment `kubectl fed join` renders them from its own
// --namespace-quota, --share-cpu and --share-memory) and their checks.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "result/result.hpp"
#include "roles/role_runner.hpp"

namespace fed::tenancy {

class TenancyCommand final {
 public:
  explicit TenancyCommand(CLI::App& app);
  TenancyCommand(const TenancyCommand&) = delete;
  TenancyCommand& operator=(const TenancyCommand&) = delete;

  bool parsed() const { return command_->parsed(); }
  // The runner; Invalid names the flag and the fix.
  Result<std::unique_ptr<agent::RoleRunner>> runner() const;

 private:
  CLI::App* command_;
  std::string bind_address, cert_dir, quota, default_request, local_pod_cidr;
  int namespace_quota = 20;
};

}  // namespace fed::tenancy

#include "agent/roles/role_command.hpp"

#include <iostream>

#include "agent/roles/run.hpp"

namespace fed::agent {

int run_role_or_usage(Result<std::unique_ptr<RoleRunner>> runner, const AgentOptions& options) {
  if (!runner) {
    std::cerr << "fed-agent: " << runner.error().message() << "\n";
    return kExitUsage;
  }
  return run_role(**runner, options);
}

}  // namespace fed::agent

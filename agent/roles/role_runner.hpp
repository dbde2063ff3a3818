#pragma once
// What every long-running fed-agent role implements (role.hpp lists them): run_role() (run.hpp)
// starts it after the health server is up and stops it on SIGTERM.

#include <string_view>

#include "agent/roles/options.hpp"
#include "agent/roles/role.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/result/result.hpp"

namespace fed::agent {

// What a role may use while it runs; owned by run_role() and valid until stop() returns.
struct RoleContext {
  const AgentOptions& options;
  metrics::Registry& metrics;
};

class RoleRunner {
 public:
  virtual ~RoleRunner() = default;

  virtual Role role() const = 0;

  // Starts the role's controllers on their own threads and returns; an error aborts the
  // process with exit code 1 after a clean shutdown.
  virtual Status start(const RoleContext& ctx) = 0;

  // True once the role can do its job (caches synced, leader known, ...). Called from HTTP
  // threads for /readyz: must be thread-safe and quick.
  virtual bool ready() const = 0;

  // Stops every thread the role started and returns after joining them. Idempotent; called
  // once after a successful start().
  virtual void stop() = 0;
};

}  // namespace fed::agent

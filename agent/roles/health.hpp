#pragma once
// /healthz and /readyz for every role (/metrics: metrics_server.hpp).
//   /healthz (liveness): 200 while the main loop keeps ticking; 503 once it has stalled, so
//            kubelet restarts a wedged agent.
//   /readyz  (readiness): 200 once the role says it is ready, 503 before and while shutting down.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "agent/roles/role_runner.hpp"
#include "shared/http/server.hpp"

namespace fed::agent {

// How long the main loop may go without a tick before /healthz fails.
inline constexpr std::chrono::seconds kStallAfter{30};

// Shared between the main loop (writer) and the HTTP threads (readers).
class HealthState final {
 public:
  HealthState() { beat(); }
  // Records that the main loop is alive; called on every tick.
  void beat();
  // Time since the last beat().
  std::chrono::steady_clock::duration since_beat() const;
  // Readiness is withdrawn as soon as shutdown begins.
  void set_shutting_down() { shutting_down_ = true; }
  bool shutting_down() const { return shutting_down_; }

 private:
  std::atomic<std::int64_t> last_beat_ns_{0};
  std::atomic<bool> shutting_down_{false};
};

// Registers both endpoints on `server`. Every argument must outlive the server's stop().
void serve_health(http::Server& server, const HealthState& health, const RoleRunner& runner,
                  std::chrono::steady_clock::duration stall_after = kStallAfter);

}  // namespace fed::agent

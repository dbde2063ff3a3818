#include "agent/roles/health.hpp"

#include <string>

namespace fed::agent {

void HealthState::beat() {
  last_beat_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                      std::memory_order_relaxed);
}

std::chrono::steady_clock::duration HealthState::since_beat() const {
  const std::chrono::steady_clock::duration last(last_beat_ns_.load(std::memory_order_relaxed));
  return std::chrono::steady_clock::now().time_since_epoch() - last;
}

void serve_health(http::Server& server, const HealthState& health, const RoleRunner& runner,
                  std::chrono::steady_clock::duration stall_after) {
  server.handle("/healthz", [&health, stall_after](const http::Request&) {
    const auto age = health.since_beat();
    if (age > stall_after) {
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(age).count();
      return http::Response::text(503, "main loop stalled for " + std::to_string(seconds) + "s");
    }
    return http::Response::text(200, "ok");
  });
  server.handle("/readyz", [&health, &runner](const http::Request&) {
    if (health.shutting_down()) return http::Response::text(503, "shutting down");
    if (!runner.ready()) {
      return http::Response::text(
          503, "role " + std::string(to_string(runner.role())) + " is not ready yet");
    }
    return http::Response::text(200, "ok");
  });
}

}  // namespace fed::agent

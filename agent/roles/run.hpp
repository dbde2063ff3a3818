#pragma once
// The life of a fed-agent process once its role is chosen: logging, the health and metrics
// server, the role's start, a main loop that ticks the liveness heartbeat until SIGTERM or
// SIGINT, then an orderly stop.

#include "agent/roles/role_runner.hpp"

namespace fed::agent {

// Exit codes of a role: 0 after a clean shutdown on a signal, 1 when start-up failed, 2 when
// its flags are wrong.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Runs `runner` with `options` until a shutdown signal; returns the process exit code.
// Call from main before any thread exists (signal mask, see signals.hpp).
int run_role(RoleRunner& runner, const AgentOptions& options);

}  // namespace fed::agent

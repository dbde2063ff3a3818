#include "agent/roles/run.hpp"

#include <spdlog/spdlog.h>
#include <string.h>  // strsignal

#include <chrono>
#include <string>

#include "agent/roles/health.hpp"
#include "agent/roles/metrics_server.hpp"
#include "agent/roles/signals.hpp"
#include "shared/http/server.hpp"
#include "shared/metrics/process_metrics.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/util/build_info.hpp"

namespace fed::agent {
namespace {

// The main loop's tick: the liveness heartbeat's period and the longest a signal waits.
constexpr std::chrono::milliseconds kTick{1000};

}  // namespace

int run_role(RoleRunner& runner, const AgentOptions& options) {
  log::init({options.log_format, log_verbosity(options.verbosity)});
  const std::string role(to_string(runner.role()));

  auto signals = ShutdownSignals::install();
  if (!signals) {
    spdlog::error("fed-agent {}: {}", role, signals.error().message());
    return kExitFailure;
  }

  metrics::Registry registry;
  metrics::register_process_metrics(registry);
  registry
      .gauge_family("fed_build_info", "fed-agent build and role; always 1.",
                    {"version", "commit", "role"})
      .with({std::string(build::version()), std::string(build::git_commit()), role})
      .set(1);
  auto& ready_gauge = registry.gauge("fed_agent_ready", "1 once the role reports ready.");

  http::ServerOptions server_options;
  server_options.bind_address = options.bind_address;
  server_options.name = "health";
  auto created = http::Server::create(server_options);
  if (!created) {
    spdlog::error("fed-agent {}: {}", role, created.error().message());
    return kExitFailure;
  }
  auto server = std::move(created).value();
  HealthState health;
  serve_health(*server, health, runner);
  if (auto started = server->start(); !started) {
    spdlog::error("fed-agent {}: {}", role, started.error().message());
    return kExitFailure;
  }

  spdlog::info("fed-agent {} (commit {}) starting role {}", build::version(), build::git_commit(),
               role);
  const RoleContext ctx{options, registry};
  if (auto started = runner.start(ctx); !started) {
    spdlog::error("fed-agent {}: role failed to start: {}", role, started.error().message());
    health.set_shutting_down();
    server->stop();
    return kExitFailure;
  }
  // After the role, whose errors (no cluster, bad flags) say more than the metrics' would.
  auto metrics_server = MetricsServer::start(runner.role(), options, registry);
  if (!metrics_server) {
    spdlog::error("fed-agent {}: metrics: {}", role, metrics_server.error().message());
    health.set_shutting_down();
    runner.stop();
    server->stop();
    return kExitFailure;
  }
  spdlog::info("fed-agent {}: /metrics on {} ({})", role, (*metrics_server)->local_address(),
               (*metrics_server)->authenticated()
                   ? "HTTPS; callers checked by TokenReview and SubjectAccessReview"
                   : "plain HTTP on loopback");

  while (true) {
    health.beat();
    ready_gauge.set(runner.ready() ? 1 : 0);
    if (const auto signo = signals->wait(kTick)) {
      spdlog::info("fed-agent {}: received {}, shutting down", role, ::strsignal(*signo));
      break;
    }
  }

  health.set_shutting_down();
  ready_gauge.set(0);
  runner.stop();
  server->stop();
  spdlog::info("fed-agent {}: stopped cleanly", role);
  return kExitOk;
}

}  // namespace fed::agent

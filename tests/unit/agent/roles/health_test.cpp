#include "agent/roles/health.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "agent/roles/metrics_server.hpp"
#include "agent/roles/options.hpp"
#include "shared/metrics/registry.hpp"
#include "tests/unit/shared/http/test_client.hpp"

using namespace std::chrono_literals;
using fed::http::test::body_of;
using fed::http::test::get;
using fed::http::test::status_line;

namespace {

class FakeRunner final : public fed::agent::RoleRunner {
 public:
  fed::agent::Role role() const override { return fed::agent::Role::Manager; }
  fed::Status start(const fed::agent::RoleContext&) override { return fed::ok(); }
  bool ready() const override { return ready_; }
  void stop() override {}
  std::atomic<bool> ready_{false};
};

std::unique_ptr<fed::http::Server> serve(const fed::agent::HealthState& health,
                                         const fed::agent::RoleRunner& runner,
                                         std::chrono::steady_clock::duration stall_after) {
  fed::http::ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  auto server = fed::http::Server::create(o);
  REQUIRE(server);
  fed::agent::serve_health(**server, health, runner, stall_after);
  REQUIRE((*server)->start());
  return std::move(server).value();
}

}  // namespace

TEST_CASE("/readyz follows the runner and turns 503 once shutdown begins") {
  fed::agent::HealthState health;
  FakeRunner runner;
  auto server = serve(health, runner, 30s);

  const std::string before = get(server->port(), "/readyz");
  CHECK(status_line(before) == "HTTP/1.1 503 Service Unavailable");
  CHECK(body_of(before) == "role manager is not ready yet\n");

  runner.ready_ = true;
  CHECK(status_line(get(server->port(), "/readyz")) == "HTTP/1.1 200 OK");

  health.set_shutting_down();
  const std::string after = get(server->port(), "/readyz");
  CHECK(status_line(after) == "HTTP/1.1 503 Service Unavailable");
  CHECK(body_of(after) == "shutting down\n");
}

TEST_CASE("/healthz fails once the main loop stops ticking") {
  fed::agent::HealthState health;
  FakeRunner runner;
  auto server = serve(health, runner, 150ms);
  CHECK(status_line(get(server->port(), "/healthz")) == "HTTP/1.1 200 OK");
  std::this_thread::sleep_for(300ms);
  const std::string stalled = get(server->port(), "/healthz");
  CHECK(status_line(stalled) == "HTTP/1.1 503 Service Unavailable");
  CHECK(body_of(stalled).find("main loop stalled for ") == 0);
  health.beat();
  CHECK(status_line(get(server->port(), "/healthz")) == "HTTP/1.1 200 OK");
}

TEST_CASE("/metrics is not on the health port; on a loopback metrics address it is plain HTTP") {
  fed::agent::HealthState health;
  FakeRunner runner;
  auto server = serve(health, runner, 30s);
  CHECK(status_line(get(server->port(), "/metrics")) == "HTTP/1.1 404 Not Found");

  fed::metrics::Registry registry;
  registry.counter("fed_test_total", "A test counter.").inc(2);
  fed::agent::AgentOptions options;
  options.metrics_bind_address = "127.0.0.1:0";
  auto metrics = fed::agent::MetricsServer::start(fed::agent::Role::Manager, options, registry);
  REQUIRE(metrics);
  CHECK_FALSE((*metrics)->authenticated());
  const auto port = static_cast<std::uint16_t>(
      std::stoi((*metrics)->local_address().substr((*metrics)->local_address().rfind(':') + 1)));
  const std::string answer = get(port, "/metrics");
  CHECK(status_line(answer) == "HTTP/1.1 200 OK");
  CHECK(answer.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n") !=
        std::string::npos);
  CHECK(body_of(answer) ==
        "# HELP fed_test_total A test counter.\n# TYPE fed_test_total counter\nfed_test_total 2\n");
}

TEST_CASE("the metrics address: the role's default, a bad one named by its flag") {
  fed::agent::AgentOptions options;
  CHECK(fed::agent::metrics_bind_address(fed::agent::Role::Node, options) == "0.0.0.0:9441");
  CHECK(fed::agent::metrics_bind_address(fed::agent::Role::EtcdProxy, options) == "127.0.0.1:9442");
  options.metrics_bind_address = "9441";
  auto bad = fed::agent::validate(options);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("--metrics-bind-address: ") == 0);
}

TEST_CASE("options: bind address is checked, klog levels map to log levels") {
  fed::agent::AgentOptions options;
  CHECK(options.bind_address == "0.0.0.0:9440");
  CHECK(fed::agent::validate(options));
  options.bind_address = "localhost";
  auto bad = fed::agent::validate(options);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("--bind-address: bind address \"localhost\": missing port") ==
        0);
  options.bind_address = "[::1]:0";
  CHECK(fed::agent::validate(options));
  options.verbosity = -1;
  CHECK_FALSE(fed::agent::validate(options));
  CHECK(fed::agent::log_verbosity(0) == 0);
  CHECK(fed::agent::log_verbosity(2) == 1);
  CHECK(fed::agent::log_verbosity(4) == 1);
  CHECK(fed::agent::log_verbosity(6) == 2);
}

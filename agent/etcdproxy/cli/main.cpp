// fed-etcd-proxy: the etcd proxy as a process of its own, for the netns tests, the benchmarks and
// debugging. `fed-agent etcd-proxy` runs the same run_etcd_proxy().
#include <pthread.h>
#include <signal.h>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include "etcdproxy/etcd_proxy.hpp"
#include "http/server.hpp"
#include "log/log.hpp"
#include "metrics/registry.hpp"
#include "util/strings.hpp"

namespace {

constexpr int kExitUsage = 2;

int run(int argc, char** argv) {
  CLI::App app{"fed-etcd-proxy: leader-aware TCP proxy for kube-apiserver's etcd traffic"};
  fed::etcdproxy::EtcdProxyOptions o;
  std::string members, policy = "leader", metrics_address;
  int poll_ms = 500, status_timeout_ms = 800, dial_ms = 1000, quiet_ms = 5, deadline_ms = 10000;
  int verbosity = 0;
  app.add_option("--listen-address", o.listen_address, "host:port kube-apiserver connects to")
      ->capture_default_str();
  app.add_option("--members", members, "comma-separated member URLs (https://10.0.0.1:2379,...)")
      ->required();
  app.add_option("--policy", policy, "round-robin | leader | leader+classifier")
      ->capture_default_str();
  app.add_option("--cacert", o.status_tls.ca_file, "CA of the members' serving certificates");
  app.add_option("--cert", o.status_tls.cert_file, "client certificate for status polls");
  app.add_option("--key", o.status_tls.key_file, "client key for status polls");
  app.add_option("--poll-period-ms", poll_ms, "Maintenance.Status period")->capture_default_str();
  app.add_option("--status-timeout-ms", status_timeout_ms, "limit per status poll")
      ->capture_default_str();
  app.add_option("--dial-timeout-ms", dial_ms, "limit per member connect")->capture_default_str();
  app.add_option("--drain-quiet-ms", quiet_ms, "quiet time before closing a deposed leader's link")
      ->capture_default_str();
  app.add_option("--drain-deadline-ms", deadline_ms, "close a deposed leader's link by then")
      ->capture_default_str();
  app.add_option("--metrics-address", metrics_address, "host:port serving /metrics (optional)");
  app.add_flag("-v", verbosity, "more logs (repeat for trace)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  fed::log::init({fed::log::Format::Text, verbosity});
  auto parsed_policy = fed::etcdproxy::parse_proxy_policy(policy);
  if (!parsed_policy) {
    spdlog::error("--policy: {}", parsed_policy.error().message());
    return kExitUsage;
  }
  o.policy = *parsed_policy;
  for (auto& m : fed::util::split(members, ',')) {
    if (!m.empty()) o.members.push_back(m);
  }
  o.poll_period = std::chrono::milliseconds(poll_ms);
  o.status_timeout = std::chrono::milliseconds(status_timeout_ms);
  o.dial_timeout = std::chrono::milliseconds(dial_ms);
  o.drain_quiet = std::chrono::milliseconds(quiet_ms);
  o.drain_deadline = std::chrono::milliseconds(deadline_ms);

  // Signals are taken by sigwait on this thread; every other thread inherits the mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  fed::metrics::Registry registry;
  std::unique_ptr<fed::http::Server> server;
  if (!metrics_address.empty()) {
    fed::http::ServerOptions so;
    so.bind_address = metrics_address;
    so.name = "metrics";
    auto created = fed::http::Server::create(so);
    if (!created) {
      spdlog::error("--metrics-address: {}", created.error().message());
      return kExitUsage;
    }
    server = std::move(*created);
    server->handle("/metrics", [&registry](const fed::http::Request&) {
      auto r = fed::http::Response::text(200, registry.render());
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      return r;
    });
    if (auto s = server->start(); !s) {
      spdlog::error("{}", s.error().message());
      return 1;
    }
  }
  std::stop_source stop;
  fed::Status result = fed::ok();
  std::thread proxy([&] {
    result = fed::etcdproxy::run_etcd_proxy(o, registry, stop.get_token());
    if (!result) kill(getpid(), SIGTERM);  // wake sigwait
  });
  int sig = 0;
  sigwait(&set, &sig);
  stop.request_stop();
  proxy.join();
  if (server) server->stop();
  if (!result) {
    spdlog::error("etcd-proxy: {}", result.error().message());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    spdlog::critical("fed-etcd-proxy: unexpected error: {}", e.what());
  }
  return 1;
}

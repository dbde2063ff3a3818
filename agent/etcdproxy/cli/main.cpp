// fed-etcd-proxy: the etcd proxy as a process of its own, for the netns tests, the benchmarks and
// debugging. `fed-agent etcd-proxy` runs the same run_etcd_proxy().
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include "agent/etcdproxy/cli/etcd_proxy_flags.hpp"
#include "agent/etcdproxy/etcd_proxy.hpp"
#include "agent/roles/signals.hpp"
#include "shared/http/server.hpp"
#include "shared/log/log.hpp"
#include "shared/metrics/registry.hpp"

namespace {

constexpr int kExitUsage = 2;

int run(int argc, char** argv) {
  CLI::App app{"fed-etcd-proxy: leader-aware TCP proxy for kube-apiserver's etcd traffic"};
  fed::etcdproxy::EtcdProxyFlags flags;
  std::string metrics_address;
  int verbosity = 0;
  fed::etcdproxy::add_etcd_proxy_flags(app, flags);
  app.add_option("--metrics-address", metrics_address, "host:port serving /metrics (optional)");
  app.add_flag("-v", verbosity, "more logs (repeat for trace)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  fed::log::init({fed::log::Format::Text, verbosity});
  auto options = fed::etcdproxy::to_options(flags);
  if (!options) {
    spdlog::error("{}", options.error().message());
    return kExitUsage;
  }
  const fed::etcdproxy::EtcdProxyOptions& o = *options;

  // SIGTERM and SIGINT are read from a signalfd on this thread; the mask is set before any other
  // thread starts, so every thread inherits it.
  auto signals = fed::agent::ShutdownSignals::install();
  if (!signals) {
    spdlog::error("{}", signals.error().message());
    return 1;
  }

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
  std::atomic<bool> ended{false};
  std::thread proxy([&] {
    result = fed::etcdproxy::run_etcd_proxy(o, registry, stop.get_token());
    ended = true;
  });
  while (!ended && !signals->wait(std::chrono::milliseconds(200))) {
  }
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

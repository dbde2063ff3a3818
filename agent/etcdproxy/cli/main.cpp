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

#include "etcdproxy/cli/etcd_proxy_flags.hpp"
#include "etcdproxy/etcd_proxy.hpp"
#include "http/server.hpp"
#include "log/log.hpp"
#include "metrics/registry.hpp"

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

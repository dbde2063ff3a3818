// fed-node-datapath: the node datapath as a process of its own, for the netns tests, the
// benchmarks and debugging. `fed-agent node` runs the same run_node_datapath().
#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <exception>
#include <stop_token>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "fabric/node_datapath.hpp"
#include "log/log.hpp"
#include "metrics/registry.hpp"

namespace {

// "500ms", "30s", "2m", "1h".
fed::Result<std::chrono::milliseconds> parse_period(const std::string& s) {
  long long n = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  std::string unit(ptr, s.data() + s.size());
  long long factor = unit == "ms"  ? 1
                     : unit == "s" ? 1000
                     : unit == "m" ? 60000
                     : unit == "h" ? 3600000
                                   : 0;
  if (ec != std::errc() || factor == 0 || n <= 0) {
    return fed::fail(
        fed::ErrorCode::Invalid,
        "--resync-period \"" + s + "\": expected a positive number with ms, s, m or h");
  }
  return std::chrono::milliseconds(n * factor);
}

int run(int argc, char** argv) {
  CLI::App app{
      "fed-node-datapath: routes, overlay and NAT of one node (fed-agent node's datapath)"};
  fed::fabric::NodeOptions opts;
  std::string state_file, resync = "30s", log_format = "text";
  bool once = false, uninstall = false;
  int verbosity = 0;
  app.add_option("--state-file", state_file, "desired NodeNetworkState (YAML or JSON)");
  app.add_option("--resync-period", resync, "re-read the kernel and repair drift this often");
  app.add_flag("--once", once, "reconcile once and exit (2: invalid state, 1: failure)");
  app.add_flag("--uninstall", uninstall, "remove every route, rule, link and chain made, and exit");
  app.add_option("--route-table", opts.datapath.route_table, "routing table id the agent owns");
  app.add_option("--rule-priority", opts.datapath.rule_priority, "priority of the agent's rules");
  app.add_option("--vxlan-device", opts.datapath.vxlan_device, "name of the overlay device");
  app.add_option("--vxlan-mtu", opts.datapath.vxlan_mtu, "overlay MTU (underlay MTU - 50)");
  app.add_flag("--direct-routing", opts.datapath.direct_routing,
               "route to on-link nodes by their IP instead of over VXLAN");
  app.add_option("--log-format", log_format, "text or json");
  app.add_flag("-v", verbosity, "more logs (repeat for trace)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : fed::fabric::kExitInvalid;
  }
  auto format = fed::log::parse_format(log_format);
  if (!format) {
    std::fprintf(stderr, "%s\n", format.error().message().c_str());
    return fed::fabric::kExitInvalid;
  }
  fed::log::init({.format = *format, .verbosity = verbosity});
  if (once && uninstall) {
    spdlog::error("--once and --uninstall exclude each other");
    return fed::fabric::kExitInvalid;
  }
  opts.mode = uninstall ? fed::fabric::DatapathMode::Uninstall
              : once    ? fed::fabric::DatapathMode::Once
                        : fed::fabric::DatapathMode::Run;
  if (!uninstall && state_file.empty()) {
    spdlog::error("--state-file is required (unless --uninstall)");
    return fed::fabric::kExitInvalid;
  }
  opts.state_file = state_file;
  auto period = parse_period(resync);
  if (!period) {
    spdlog::error("{}", period.error().message());
    return fed::fabric::kExitInvalid;
  }
  opts.resync_period = *period;

  // SIGTERM/SIGINT stop the loop from a thread that waits for them (no async handler).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::stop_source stop;
  std::thread([set, &stop]() mutable {
    int sig = 0;
    sigwait(&set, &sig);
    spdlog::info("signal {}: stopping (the datapath stays in place)", sig);
    stop.request_stop();
  }).detach();

  fed::metrics::Registry registry;
  return fed::fabric::run_node_datapath(opts, stop.get_token(), registry);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fed-node-datapath: internal error: %s\n", e.what());
    return 1;
  }
}

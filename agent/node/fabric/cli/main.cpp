// fed-node-datapath: the node datapath as a process of its own, for the netns tests, the
// benchmarks and debugging. `fed-agent node` runs the same run_node_datapath().
#include <chrono>
#include <cstdio>
#include <exception>
#include <stop_token>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "agent/node/fabric/node_datapath.hpp"
#include "agent/roles/signals.hpp"
#include "shared/log/log.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/util/duration.hpp"

namespace {

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
  auto period = fed::util::parse_positive_duration(resync, "--resync-period");
  if (!period) {
    spdlog::error("{}", period.error().message());
    return fed::fabric::kExitInvalid;
  }
  opts.resync_period = *period;

  // SIGTERM/SIGINT stop the loop: a thread reads them from a signalfd (no async handler).
  auto signals = fed::agent::ShutdownSignals::install();
  if (!signals) {
    spdlog::error("{}", signals.error().message());
    return 1;
  }
  std::stop_source stop;
  std::jthread watcher([&signals, &stop](std::stop_token done) {
    while (!done.stop_requested() && !stop.stop_requested()) {
      if (auto sig = signals->wait(std::chrono::milliseconds(200))) {
        spdlog::info("signal {}: stopping (the datapath stays in place)", *sig);
        stop.request_stop();
      }
    }
  });

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

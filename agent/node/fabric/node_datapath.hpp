#pragma once
// The node role's datapath entry point: what `fed-agent node` calls. Builds the Linux back ends
// in the current network namespace and runs the NodeReconciler until stopped, once, or the
// uninstall.

#include <chrono>
#include <filesystem>
#include <stop_token>

#include "agent/node/fabric/datapath_config.hpp"
#include "shared/metrics/registry.hpp"

namespace fed::fabric {

enum class DatapathMode {
  Run,        // reconcile now, on every state-file change and every resync period until stopped
  Once,       // one pass, then exit
  Uninstall,  // remove everything the agent made, then exit
};

struct NodeOptions {
  std::filesystem::path state_file;  // --state-file (not needed to uninstall)
  std::chrono::milliseconds resync_period{std::chrono::seconds(30)};  // --resync-period
  DatapathMode mode = DatapathMode::Run;                              // --once / --uninstall
  DatapathConfig datapath;  // --route-table, --rule-priority, --vxlan-device, --vxlan-mtu
};

// Exit codes of run_node_datapath.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // kernel or environment failure
inline constexpr int kExitInvalid = 2;  // the state cannot be applied; nothing was changed

// Runs the datapath as `options` says, registering its metrics in `registry`. In Run mode it
// returns kExitOk once `stop` is requested (leaving the datapath in place: traffic keeps
// flowing across agent restarts); an invalid state is logged and waited out, not fatal.
int run_node_datapath(const NodeOptions& options, std::stop_token stop,
                      metrics::Registry& registry);

// Logs a warning when the host's `iptables` drives nf_tables while the agent writes legacy
// tables. Called by run_node_datapath; exposed for the role's start-up report.
void warn_if_nftables_backend();

}  // namespace fed::fabric

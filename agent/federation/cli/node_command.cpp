#include "federation/cli/node_command.hpp"

#include <stop_token>

#include "fabric/node_datapath.hpp"
#include "fabric/state_file_runner.hpp"
#include "federation/node_runner.hpp"
#include "log/log.hpp"
#include "metrics/registry.hpp"
#include "util/duration.hpp"

namespace fed::federation {
namespace {

Result<std::chrono::milliseconds> resync_period(const std::string& text) {
  auto d = util::parse_duration(text);
  if (!d || d->count() <= 0) {
    return fail(ErrorCode::Invalid,
                "--resync-period \"" + text + "\": expected a positive duration such as 30s or 2m");
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

}  // namespace

NodeCommand::NodeCommand(CLI::App& node) {
  node.add_option("--node-name", flags_.node_name,
                  "This node's name (default: $NODE_NAME, set by the DaemonSet, else the "
                  "hostname)");
  node.add_option("--state-file", flags_.state_file,
                  "Follow a desired NodeNetworkState file (YAML or JSON) instead of the "
                  "federation's API objects");
  node.add_option("--resync-period", flags_.resync_period,
                  "Re-read the kernel and repair drift this often")
      ->capture_default_str();
  node.add_flag("--uninstall", flags_.uninstall,
                "Remove every route, rule, link and chain the agent made, then exit");
  node.add_option("--route-table", flags_.datapath.route_table, "Routing table id the agent owns")
      ->capture_default_str();
  node.add_option("--rule-priority", flags_.datapath.rule_priority,
                  "Priority of the agent's policy rules")
      ->capture_default_str();
  node.add_option("--vxlan-device", flags_.datapath.vxlan_device, "Name of the overlay device")
      ->capture_default_str();
  node.add_option("--vxlan-mtu", flags_.datapath.vxlan_mtu, "Overlay MTU (underlay MTU - 50)")
      ->capture_default_str();
}

int NodeCommand::run_uninstall(const agent::AgentOptions& common) const {
  log::init({common.log_format, agent::log_verbosity(common.verbosity)});
  fabric::NodeOptions options;
  options.mode = fabric::DatapathMode::Uninstall;
  options.datapath = flags_.datapath;
  metrics::Registry unused;
  return fabric::run_node_datapath(options, std::stop_token{}, unused);
}

Result<std::unique_ptr<agent::RoleRunner>> NodeCommand::runner() const {
  FED_ASSIGN_OR_RETURN(const auto period, resync_period(flags_.resync_period));
  if (!flags_.state_file.empty()) {
    fabric::NodeOptions options;
    options.state_file = flags_.state_file;
    options.resync_period = period;
    options.datapath = flags_.datapath;
    return std::unique_ptr<agent::RoleRunner>(
        std::make_unique<fabric::StateFileNodeRunner>(std::move(options)));
  }
  NodeRunnerOptions options;
  options.node_name = flags_.node_name;
  options.resync_period = period;
  options.datapath = flags_.datapath;
  return std::unique_ptr<agent::RoleRunner>(std::make_unique<NodeRunner>(std::move(options)));
}

}  // namespace fed::federation

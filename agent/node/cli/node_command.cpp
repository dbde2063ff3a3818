#include "agent/node/cli/node_command.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stop_token>

#include <spdlog/spdlog.h>

#include "agent/node/fabric/apply.hpp"
#include "agent/node/fabric/node_datapath.hpp"
#include "agent/node/node_runner.hpp"
#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/wireguard_go_daemon.hpp"
#include "agent/node/state_file_runner.hpp"
#include "agent/node/tunnel/tunnel_reconciler.hpp"
#include "agent/node/tunnel/vxlan_tunnel.hpp"
#include "agent/node/tunnel/wireguard_backend.hpp"
#include "shared/log/log.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/strings.hpp"

namespace fed::federation {
namespace {

// `program` as given when it holds a '/' or is found on PATH; else the file of that name next
// to this executable, if there is one (the testbed's images put wireguard-go beside fed-agent
// in /usr/local/bin, which is not on their PATH).
std::string resolve_program(const std::string& program) {
  namespace fs = std::filesystem;
  if (program.empty() || program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  for (const auto& dir : util::split(path != nullptr ? path : "", ':')) {
    if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) return program;
  }
  std::error_code ec;
  const auto beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / program;
  if (!ec && ::access(beside.c_str(), X_OK) == 0) return beside.string();
  return program;
}

// Removes the gateway tunnels, WireGuard and VXLAN (every node tries: the label may have
// moved); the key file stays.
Status uninstall_tunnel(const tunnel::TunnelOptions& options) {
  FED_ASSIGN_OR_RETURN(auto links, os::NetlinkLinkManager::create());
  os::WireguardGoSettings settings;
  settings.program = resolve_program(options.wireguard_go);
  settings.socket_dir = options.socket_dir;
  os::WireguardGoDaemon daemon(std::move(settings));
  tunnel::TunnelReconciler reconciler({*links, daemon});
  fabric::Errors errors;
  errors.add(reconciler.uninstall(options));
  errors.add(tunnel::converge_vxlan_tunnel(*links, tunnel::VxlanTunnelOptions{}, {}));
  return errors.result("tunnel uninstall");
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
  node.add_flag("--direct-routing", flags_.datapath.direct_routing,
                "Route to nodes on a connected subnet by their IP instead of over VXLAN (the node "
                "network must accept pod addresses: no source/destination check)");
  node.add_option("--tunnel-interface", flags_.tunnel.interface,
                  "The gateway's WireGuard interface (API mode and --uninstall)")
      ->capture_default_str();
  node.add_option("--tunnel-port", flags_.tunnel.listen_port,
                  "UDP port the gateway's WireGuard listens on and publishes")
      ->capture_default_str();
  node.add_option("--tunnel-key-file", flags_.tunnel.private_key_file,
                  "The gateway's WireGuard private key (made on first use, mode 0600; kept by "
                  "--uninstall: it is the gateway's identity)")
      ->capture_default_str();
  node.add_option("--tunnel-mtu", flags_.tunnel.mtu, "MTU of the WireGuard interface")
      ->capture_default_str();
  node.add_option("--wireguard-backend", flags_.tunnel.backend,
                  "WireGuard implementation of the gateway tunnel: auto (the kernel's when it has "
                  "the module, else wireguard-go), kernel or wireguard-go")
      ->transform(CLI::CheckedTransformer(tunnel::tunnel_backend_names(), CLI::ignore_case))
      ->default_str("auto");
  node.add_option("--wireguard-go", flags_.tunnel.wireguard_go,
                  "The wireguard-go program (without a '/': on PATH, else beside fed-agent)")
      ->capture_default_str();
}

int NodeCommand::run_uninstall(const agent::AgentOptions& common) const {
  log::init({common.log_format, agent::log_verbosity(common.verbosity)});
  fabric::NodeOptions options;
  options.mode = fabric::DatapathMode::Uninstall;
  options.datapath = flags_.datapath;
  metrics::Registry unused;
  int code = fabric::run_node_datapath(options, std::stop_token{}, unused);
  // After the fabric: its routes go through the tunnel's link.
  if (auto s = uninstall_tunnel(flags_.tunnel); !s) {
    spdlog::error("gateway tunnel: {}", s.error().message());
    code = fabric::kExitFailure;
  } else {
    spdlog::info("gateway tunnel: uninstalled (the key file {} is kept)",
                 flags_.tunnel.private_key_file);
  }
  return code;
}

Result<std::unique_ptr<agent::RoleRunner>> NodeCommand::runner() const {
  FED_ASSIGN_OR_RETURN(const auto period,
                       util::parse_positive_duration(flags_.resync_period, "--resync-period"));
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
  options.tunnel = flags_.tunnel;
  options.tunnel.wireguard_go = resolve_program(flags_.tunnel.wireguard_go);
  return std::unique_ptr<agent::RoleRunner>(std::make_unique<NodeRunner>(std::move(options)));
}

}  // namespace fed::federation

#pragma once
// `fed-agent node` in a federation (the DaemonSet, docs/JOIN.md): the node's datapath
// converged to the state the API describes — ApiNodeStateSource feeds the gateway tunnel
// (GatewayTunnel, on the gateway node) and then the fabric's NodeReconciler through a one-key
// controller, so an input change reconciles at once and a resync undoes drift. SIGTERM leaves the
// datapath in place (traffic survives an agent restart); removal is `fed-agent node --uninstall`
// from the DaemonSet's cleanup path.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "agent/node/api_state_source.hpp"
#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/fabric/datapath_metrics.hpp"
#include "agent/node/fabric/node_reconciler.hpp"
#include "agent/node/gateway_publisher.hpp"
#include "agent/node/gateway_tunnel.hpp"
#include "agent/node/nat_mapping_status.hpp"
#include "agent/node/os/linux/iptc_nat_table.hpp"
#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netlink_route_table.hpp"
#include "agent/node/os/linux/nft_dnat_table.hpp"
#include "agent/node/os/wireguard_daemon.hpp"
#include "agent/roles/role_runner.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/event_recorder.hpp"

namespace fed::federation {

struct NodeRunnerOptions {
  std::string node_name;  // --node-name, else $NODE_NAME (the downward API), else hostname
  std::chrono::milliseconds resync_period{std::chrono::seconds(30)};
  fabric::DatapathConfig datapath;
  tunnel::TunnelOptions tunnel;  // the gateway's WireGuard settings (address: from Peerings)
};

class NodeRunner final : public agent::RoleRunner {
 public:
  explicit NodeRunner(NodeRunnerOptions options) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::Node; }
  Status start(const agent::RoleContext& ctx) override;
  // Ready once a pass converged with the current inputs.
  bool ready() const override { return ready_.load(); }
  void stop() override;

 private:
  class ReadyTracking;

  NodeRunnerOptions options_;
  std::unique_ptr<ApiNodeStateSource> source_;
  std::unique_ptr<os::NetlinkRouteTable> routes_;
  std::unique_ptr<os::NetlinkLinkManager> links_;
  std::unique_ptr<os::IptcNatTable> nat_;
  std::unique_ptr<os::NftDnatTable> dnat_;
  std::unique_ptr<fabric::DatapathMetrics> metrics_;
  std::unique_ptr<fabric::NodeReconciler> datapath_;
  std::unique_ptr<os::WireguardDaemon> wireguard_;
  std::unique_ptr<tunnel::TunnelReconciler> tunnel_reconciler_;
  std::unique_ptr<KubeGatewayApi> gateway_api_;
  std::unique_ptr<TunnelProber> prober_;
  std::unique_ptr<GatewayTunnel> tunnel_;
  std::shared_ptr<kube::DynamicClient> client_;
  std::unique_ptr<kube::EventRecorder> events_;
  std::unique_ptr<NatMappingStatusReporter> nat_status_;
  std::unique_ptr<kube::Reconciler> tracking_;
  std::unique_ptr<kube::Controller> controller_;
  std::atomic<bool> ready_{false};
};

// The node name as the agent must use it: `flag`, else $NODE_NAME, else the hostname.
std::string resolve_node_name(const std::string& flag);

}  // namespace fed::federation

#pragma once
// GatewayTunnel: the node role's tunnel pass (issue 5, docs/DATAPATH.md), run before the
// fabric's in every reconcile, because the fabric's routes on the gateway go via the peers'
// tunnel addresses on the tunnel interface. On the gateway node it loads (or makes) the
// WireGuard key, publishes the gateway ConfigMap when it differs, converges TunnelReconciler to
// the Peerings (derive_gateway_tunnel) and reports each Peering's tunnel state; on any other
// node it removes a tunnel left from when that node was the gateway. Peerings with the vxlan
// backend go to the VXLAN tunnel instead; WireGuard runs unless every peer uses VXLAN.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/node/gateway_publisher.hpp"
#include "agent/node/gateway_tunnel_config.hpp"
#include "agent/node/node_state_builder.hpp"
#include "agent/node/tunnel/tunnel_reconciler.hpp"
#include "agent/node/tunnel/vxlan_tunnel.hpp"
#include "agent/node/tunnel_prober.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

struct GatewayTunnelDeps {
  tunnel::TunnelReconciler& tunnel;
  os::LinkManager& links;  // the VXLAN tunnel's device
  GatewayApi& api;
  std::function<std::int64_t()> now;  // Unix seconds; empty: the system clock
  // The echo probe of the tunnel's peers (tunnel_prober.hpp); null: the handshake alone.
  PeerProbe* probe = nullptr;
};

class GatewayTunnel final {
 public:
  // `options`: interface, port, key file and the daemon's settings; the tunnel address comes
  // from the Peerings on every pass.
  GatewayTunnel(GatewayTunnelDeps deps, tunnel::TunnelOptions options,
                tunnel::VxlanTunnelOptions vxlan = {});

  // One pass for `in` (what the fabric's pass builds from). It goes on past a failed
  // publication or status report and returns every failure; Invalid when the Peerings cannot
  // be turned into a tunnel (the kernel is then left as it was).
  Status reconcile(const NodeStateInputs& in);

  const tunnel::TunnelOptions& options() const { return options_; }
  // Whether the last pass left a peer configured but without a handshake yet: the daemon sees
  // the handshake, not the API, so the caller looks again soon instead of at the next resync.
  bool handshake_pending() const { return handshake_pending_; }

 private:
  using PeeringStatuses = std::vector<std::pair<std::string, fedapi::TunnelStatus>>;

  Status publish(const NodeStateInputs& in, const std::string& public_key);
  // Converges the tunnel and appends each carried Peering's status.
  Status converge(const tunnel::DesiredTunnel& desired, const std::vector<std::string>& names,
                  const std::string& node, PeeringStatuses& statuses);
  // Writes the statuses that differ from the Peerings' current ones.
  Status report(const NodeStateInputs& in, const PeeringStatuses& statuses);
  // Converges the VXLAN tunnel to `peers` (removed when there are none) and appends their
  // statuses.
  Status converge_vxlan(const std::vector<VxlanTunnelPeering>& peers, net::Ipv4 address,
                        const std::string& node, PeeringStatuses& statuses);
  // Uninstalls the WireGuard tunnel when a link of ours or a daemon is there; `why` goes to
  // the log.
  Status remove_wireguard_if_present(std::string_view why);
  // Both tunnels.
  Status remove_if_present(std::string_view why);
  // Points the probe at the carried peers of `config` (none without a tunnel address) and
  // turns the Connected of a peer that stopped answering into Lost.
  void apply_probe(const GatewayTunnelConfig& config, PeeringStatuses& statuses);

  GatewayTunnelDeps deps_;
  tunnel::TunnelOptions options_;
  tunnel::VxlanTunnelOptions vxlan_;
  bool handshake_pending_ = false;
};

}  // namespace fed::federation

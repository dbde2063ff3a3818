#include "agent/node/node_runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <spdlog/spdlog.h>

#include "agent/node/fabric/node_datapath.hpp"
#include "agent/node/tunnel/wireguard_backend.hpp"
#include "agent/roles/api_config.hpp"

namespace fed::federation {

// One pass: the gateway tunnel, then the fabric's datapath (its routes on the gateway go via
// the tunnel's link), which runs even when the tunnel failed (the rest of the datapath does not
// depend on it). When only NatMappings changed since a pass that converged everything, the pass
// is the DNAT maps' transaction alone: the mappings decide nothing else, and a mapping then goes
// live without waiting for the tunnel's and the datapath's kernel reads (docs/DATAPATH.md). A
// full pass stays due one resync period after the last one. Tracks readiness: ready after a pass
// that converged, not ready while the state is invalid or the kernel refuses. Failures and the
// recovery after them also become Events on the Node, where `kubectl describe node` shows them.
class NodeRunner::ReadyTracking final : public kube::Reconciler {
 public:
  ReadyTracking(GatewayTunnel& tunnel, fabric::NodeReconciler& inner, ApiNodeStateSource& source,
                kube::EventRecorder& events, NatMappingStatusReporter& nat_status, std::string node,
                std::atomic<bool>& ready)
      : tunnel_(tunnel),
        inner_(inner),
        source_(source),
        events_(events),
        nat_status_(nat_status),
        node_{"v1", "Node", "", node, ""},
        ready_(ready) {}

  Result<kube::Requeue> reconcile(const kube::Request& request) override {
    const auto changes = source_.take_changes();
    const auto now = std::chrono::steady_clock::now();
    if (mappings_only_pass(changes, ready_, tunnel_.handshake_pending(), now >= full_due_)) {
      auto mapped = inner_.reconcile_mappings();
      if (mapped) nat_status_.applied(source_.loaded_nat_mappings(), clock::now());
      return finish(mapped ? Result<kube::Requeue>(kube::Requeue{until(full_due_, now)})
                           : Unexpected(mapped.error()));
    }
    return finish(full_pass(request, now));
  }

 private:
  using clock = std::chrono::system_clock;

  static std::chrono::milliseconds until(std::chrono::steady_clock::time_point due,
                                         std::chrono::steady_clock::time_point now) {
    return std::max(std::chrono::milliseconds(1),
                    std::chrono::ceil<std::chrono::milliseconds>(due - now));
  }

  Result<kube::Requeue> full_pass(const kube::Request& request,
                                  std::chrono::steady_clock::time_point now) {
    Status tunnel = ok();
    // Without inputs (no federation ConfigMap yet) the fabric's pass reports why.
    if (auto in = source_.inputs()) tunnel = tunnel_.reconcile(*in);
    auto r = inner_.reconcile(request);
    // The nat chains are the pass's last step: its commits are done.
    if (r) nat_status_.applied(source_.loaded_nat_mappings(), clock::now());
    if (!tunnel) {
      r = r ? Unexpected(tunnel.error())
            : Unexpected(
                  Error(r.error().code(), tunnel.error().message() + "; " + r.error().message()));
    }
    if (!r) return r;
    full_due_ = now + r->after;
    // A peer waiting for its first handshake: `join --wait` is waiting for us to report it.
    if (tunnel_.handshake_pending() &&
        (r->after.count() == 0 || r->after > std::chrono::seconds(1))) {
      r->after = std::chrono::seconds(1);
    }
    for (const auto& why : source_.pending()) spdlog::info("datapath: pending: {}", why);
    return r;
  }

  Result<kube::Requeue> finish(Result<kube::Requeue> r) {
    ready_ = r.has_value();
    if (r) {
      if (failing_) {
        events_.record(node_, kube::EventType::Normal, "DatapathConverged",
                       "the federation datapath converged again");
      }
      failing_ = false;
    } else {
      failing_ = true;
      const bool invalid = r.error().code() == ErrorCode::Invalid;
      events_.record(node_, kube::EventType::Warning,
                     invalid ? "DatapathInvalid" : "DatapathFailed",
                     invalid ? "the desired datapath cannot be applied, the kernel is left as "
                               "it was: " +
                                   r.error().message()
                             : r.error().message());
    }
    return r;
  }

 private:
  GatewayTunnel& tunnel_;
  fabric::NodeReconciler& inner_;
  ApiNodeStateSource& source_;
  kube::EventRecorder& events_;
  NatMappingStatusReporter& nat_status_;
  const kube::InvolvedObject node_;
  std::atomic<bool>& ready_;
  // One worker: no lock needed.
  bool failing_ = false;
  std::chrono::steady_clock::time_point full_due_;  // the next full pass, at the latest
};

std::string resolve_node_name(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("NODE_NAME"); env != nullptr && *env != '\0') return env;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) return host;
  return "";
}

Status NodeRunner::start(const agent::RoleContext& ctx) {
  const std::string node = resolve_node_name(options_.node_name);
  if (node.empty()) {
    return fail(ErrorCode::Invalid,
                "cannot tell this node's name: pass --node-name or set NODE_NAME (the DaemonSet "
                "sets it from spec.nodeName)");
  }
  fabric::warn_if_nftables_backend();
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-node/" + node));
  FED_ASSIGN_OR_RETURN(client_, kube::DynamicClient::create(std::move(config)));

  FED_ASSIGN_OR_RETURN(routes_, os::NetlinkRouteTable::create(options_.datapath.route_table,
                                                              options_.datapath.rule_priority));
  FED_ASSIGN_OR_RETURN(links_, os::NetlinkLinkManager::create());
  nat_ = std::make_unique<os::IptcNatTable>();
  dnat_ = std::make_unique<os::NftDnatTable>();
  metrics_ = std::make_unique<fabric::DatapathMetrics>(ctx.metrics);
  source_ = std::make_unique<ApiNodeStateSource>(client_, node, options_.tunnel.interface);
  datapath_ = std::make_unique<fabric::NodeReconciler>(
      fabric::DatapathDeps{*routes_, *links_, *nat_, *dnat_}, *source_, options_.datapath,
      options_.resync_period, metrics_.get());
  wireguard_ = tunnel::make_wireguard(options_.tunnel);
  tunnel_reconciler_ =
      std::make_unique<tunnel::TunnelReconciler>(tunnel::TunnelDeps{*links_, *wireguard_});
  gateway_api_ = std::make_unique<KubeGatewayApi>(*client_);
  // A verdict change is reported at once, by a full pass: the host withdraws a lost member's
  // pods from its Services on it (docs/DATAPATH.md "A member lost").
  const kube::Request key{"", node};
  prober_ = std::make_unique<TunnelProber>(tunnel::ProbeTiming{},
                                           [this] { source_->changed_elsewhere(); });
  tunnel_ = std::make_unique<GatewayTunnel>(
      GatewayTunnelDeps{*tunnel_reconciler_, *links_, *gateway_api_, {}, prober_.get()},
      options_.tunnel);
  events_ =
      std::make_unique<kube::EventRecorder>(client_, kube::EventSource{"fed-agent-node", node});
  nat_status_ = std::make_unique<NatMappingStatusReporter>(client_, node);
  tracking_ = std::make_unique<ReadyTracking>(*tunnel_, *datapath_, *source_, *events_,
                                              *nat_status_, node, ready_);

  kube::ControllerOptions copts;
  copts.name = "datapath";
  copts.workers = 1;  // one kernel, one writer
  controller_ = std::make_unique<kube::Controller>(*tracking_, std::move(copts));
  source_->on_change([this, key] { controller_->queue().add(key); });
  FED_TRY(prober_->start());  // after on_change: its verdicts queue full passes
  FED_TRY(source_->start(std::chrono::minutes(2)));
  FED_TRY(nat_status_->start());
  FED_TRY(controller_->start());
  controller_->queue().add(key);
  spdlog::info("node {}: datapath follows the federation's Peerings", node);
  return ok();
}

void NodeRunner::stop() {
  ready_ = false;
  if (prober_) prober_->stop();
  if (controller_) controller_->stop();
  if (nat_status_) nat_status_->stop();
  if (source_) source_->stop();
}

}  // namespace fed::federation

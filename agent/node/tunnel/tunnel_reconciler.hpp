#pragma once
// TunnelReconciler: the gateway's WireGuard tunnel over the agent/node/os interfaces. Each pass
// validates the desired tunnel, reads the link and the daemon, plans (tunnel_plan) and applies;
// uninstall removes the link, the daemon and its socket.

#include "agent/node/os/link_manager.hpp"
#include "agent/node/os/wireguard_daemon.hpp"
#include "agent/node/tunnel/tunnel_plan.hpp"
#include "shared/result/result.hpp"

namespace fed::tunnel {

// The kernel and the daemon, as the tunnel reaches them.
struct TunnelDeps {
  os::LinkManager& links;
  os::WireguardDaemon& daemon;
};

class TunnelReconciler final {
 public:
  explicit TunnelReconciler(TunnelDeps deps) : deps_(deps) {}

  // The link and the daemon's device for `options.interface`.
  Result<ObservedTunnel> observe(const TunnelOptions& options);

  // Applies `changes` in order. Stops at the first failure: every later step depends on the
  // earlier ones (no link without the daemon, no traffic without the address); the next pass
  // plans the rest again.
  Status apply(const DesiredTunnel& desired, const TunnelChanges& changes);

  // Validates `desired` (Invalid, naming the field, before anything is touched), then
  // observes, plans and applies. Returns the changes it applied: empty when already converged.
  Result<TunnelChanges> converge(const DesiredTunnel& desired);

  // Removes the tunnel: deletes the link when it carries the agent's marker, stops the daemon
  // serving the interface and removes its socket. Idempotent and best-effort: it goes on past
  // failures and reports all of them. A link of our name without the marker is left in place.
  Status uninstall(const TunnelOptions& options);

 private:
  TunnelDeps deps_;
};

}  // namespace fed::tunnel

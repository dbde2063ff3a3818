#include "agent/node/tunnel/tunnel_reconciler.hpp"

#include <spdlog/spdlog.h>

#include "agent/node/fabric/apply.hpp"

namespace fed::tunnel {
Result<ObservedTunnel> TunnelReconciler::observe(const TunnelOptions& options) {
  ObservedTunnel out;
  out.link_kind = std::string(deps_.daemon.link_kind());
  FED_ASSIGN_OR_RETURN(out.link, deps_.links.link(options.interface));
  FED_ASSIGN_OR_RETURN(out.daemon_running, deps_.daemon.running(options.interface));
  if (out.daemon_running) {
    FED_ASSIGN_OR_RETURN(auto answer, deps_.daemon.exchange(options.interface, kUapiGetRequest));
    auto device = parse_get_response(answer);
    if (!device) {
      return Unexpected(device.error().with_context("read WireGuard device " + options.interface));
    }
    out.device = std::move(*device);
  }
  return out;
}

Status TunnelReconciler::apply(const DesiredTunnel& desired, const TunnelChanges& changes) {
  const std::string& name = desired.options.interface;
  if (changes.delete_stale_link) {
    // Deleting wireguard-go's TUN link also makes that daemon exit.
    auto s = deps_.links.delete_owned_link(name);
    if (!s && s.error().code() != ErrorCode::NotFound) return s;
    spdlog::info("tunnel {}: replaced the other WireGuard back end's link", name);
  }
  if (changes.start_daemon) FED_TRY(deps_.daemon.start(name));
  if (changes.link != os::LinkSettings{}) {
    // MTU and marker before "up", in one message: the link never carries traffic unmarked.
    FED_TRY(deps_.links.set_link(name, changes.link));
  }
  for (const auto& a : changes.delete_addresses) {
    auto s = deps_.links.delete_address(name, a);
    if (!s && s.error().code() != ErrorCode::NotFound) return s;
  }
  for (const auto& a : changes.add_addresses) FED_TRY(deps_.links.add_address(name, a));
  if (!changes.uapi.empty()) {
    FED_ASSIGN_OR_RETURN(auto answer,
                         deps_.daemon.exchange(name, format_set_request(changes.uapi)));
    auto s = parse_set_response(answer);
    if (!s) return Unexpected(s.error().with_context("configure WireGuard device " + name));
  }
  return ok();
}

Result<TunnelChanges> TunnelReconciler::converge(const DesiredTunnel& desired) {
  FED_TRY(validate_options(desired.options));
  FED_ASSIGN_OR_RETURN(auto own_public, public_key_of(desired.private_key));
  FED_TRY(validate_peers(desired.peers, desired.options, own_public));
  FED_ASSIGN_OR_RETURN(auto observed, observe(desired.options));
  FED_ASSIGN_OR_RETURN(auto changes, plan_tunnel(desired, observed));
  if (changes.empty()) return changes;
  auto applied = apply(desired, changes);
  if (!applied) {
    return Unexpected(applied.error().with_context("tunnel " + desired.options.interface));
  }
  return changes;
}

Status TunnelReconciler::uninstall(const TunnelOptions& options) {
  const std::string& name = options.interface;
  fabric::Errors errors;
  auto link = deps_.links.link(name);
  if (!link) {
    errors.add(link.error());
  } else if (*link && !(*link)->owned) {
    // Not marked: another tool's link, or wireguard-go's from a pass that died before marking
    // it; stopping our daemon below removes the latter.
    spdlog::warn("tunnel uninstall: link {} has no fed-agent marker; not deleted", name);
  } else if (*link) {
    // Deleting the TUN link also makes wireguard-go exit.
    auto s = deps_.links.delete_owned_link(name);
    if (!s && s.error().code() != ErrorCode::NotFound) errors.add(s);
  }
  errors.add(deps_.daemon.stop(name));
  return errors.result("tunnel uninstall");
}

}  // namespace fed::tunnel

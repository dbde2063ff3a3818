#include "agent/node/tunnel/tunnel_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace fed::tunnel {
namespace {

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Which link settings and addresses bring `link` (nullopt: just created by the daemon, so down,
// unmarked and without addresses) to what `options` asks for.
void plan_link(const TunnelOptions& options, const std::optional<os::LinkState>& link,
               TunnelChanges& out) {
  const os::LinkState current = link.value_or(os::LinkState{});
  if (!link || current.mtu != options.mtu) out.link.mtu = options.mtu;
  if (!current.up) out.link.up = true;
  if (!current.owned) out.link.mark_owned = true;
  const os::LinkAddress want{options.address, options.prefix_length};
  // The link is ours (our daemon serves it), so any other IPv4 address on it is stale: a tunnel
  // address the manager has since changed.
  for (const auto& a : current.addresses) {
    if (a != want) out.delete_addresses.push_back(a);
  }
  if (std::find(current.addresses.begin(), current.addresses.end(), want) ==
      current.addresses.end()) {
    out.add_addresses.push_back(want);
  }
}

}  // namespace

std::string endpoint_text(const TunnelPeer& peer) {
  return fmt::format("{}:{}", peer.endpoint.str(), peer.endpoint_port);
}

std::vector<std::string> allowed_ips_text(const TunnelPeer& peer) {
  std::vector<std::string> out;
  for (const auto& r : peer.ranges) out.push_back(r.str());
  out.push_back(net::Cidr::host(peer.tunnel_address).str());
  return sorted(std::move(out));
}

UapiSet plan_uapi(const DesiredTunnel& desired, const UapiDevice& observed) {
  UapiSet set;
  if (observed.private_key != desired.private_key) set.private_key = desired.private_key;
  if (observed.listen_port != desired.options.listen_port) {
    set.listen_port = desired.options.listen_port;
  }

  std::map<WgKey, const TunnelPeer*> wanted;
  for (const auto& p : desired.peers) {
    // validate_peers rejected bad keys before planning; a bad one here is a caller's bug.
    auto key = WgKey::from_base64(p.public_key, "tunnel peer " + p.cluster_id + " publicKey");
    if (key) wanted.emplace(*key, &p);
  }
  std::map<WgKey, const UapiPeer*> have;
  for (const auto& p : observed.peers) {
    have.emplace(p.public_key, &p);
    if (!wanted.contains(p.public_key)) {
      set.peers.push_back(UapiPeerChange{.public_key = p.public_key,
                                         .remove = true,
                                         .endpoint = std::nullopt,
                                         .keepalive_seconds = std::nullopt,
                                         .allowed_ips = std::nullopt});
    }
  }
  // Desired peers in their given order, so the request reads like the configuration.
  for (const auto& p : desired.peers) {
    auto key = WgKey::from_base64(p.public_key, "tunnel peer publicKey");
    if (!key) continue;
    UapiPeerChange change{.public_key = *key,
                          .remove = false,
                          .endpoint = std::nullopt,
                          .keepalive_seconds = std::nullopt,
                          .allowed_ips = std::nullopt};
    const auto endpoint = endpoint_text(p);
    const auto allowed = allowed_ips_text(p);
    auto it = have.find(*key);
    if (it == have.end()) {
      change.endpoint = endpoint;
      change.keepalive_seconds = p.keepalive_seconds;
      change.allowed_ips = allowed;
    } else {
      const UapiPeer& cur = *it->second;
      if (cur.endpoint != endpoint) change.endpoint = endpoint;
      if (cur.keepalive_seconds != p.keepalive_seconds) {
        change.keepalive_seconds = p.keepalive_seconds;
      }
      if (sorted(cur.allowed_ips) != allowed) change.allowed_ips = allowed;
      if (!change.endpoint && !change.keepalive_seconds && !change.allowed_ips) continue;
    }
    set.peers.push_back(std::move(change));
  }
  return set;
}

Result<TunnelChanges> plan_tunnel(const DesiredTunnel& desired, const ObservedTunnel& observed) {
  const auto& name = desired.options.interface;
  TunnelChanges out;
  if (!observed.daemon_running) {
    // Left by the other back end, marked by us: after a switch between wireguard-go and the
    // kernel's (a node that gained the module), the agent replaces its own link.
    const bool stale =
        observed.link && observed.link->owned && observed.link->kind != observed.link_kind;
    if (observed.link && !stale) {
      return fail(ErrorCode::Conflict,
                  fmt::format("link {} exists (kind \"{}\") but no WireGuard daemon serves it; "
                              "it is not the agent's to take over: delete it (ip link del {}) "
                              "or choose another tunnel interface name",
                              name, observed.link->kind, name));
    }
    out.delete_stale_link = stale;
    out.start_daemon = true;
    plan_link(desired.options, std::nullopt, out);
    out.uapi = plan_uapi(desired, UapiDevice{});
    return out;
  }
  if (!observed.link) {
    return fail(ErrorCode::Unavailable,
                fmt::format("a WireGuard daemon answers for {} but the link is gone; it is "
                            "shutting down, retry",
                            name));
  }
  if (observed.link->kind != observed.link_kind) {
    return fail(ErrorCode::Conflict,
                fmt::format("link {} is a \"{}\" device, not the \"{}\" device of the "
                            "WireGuard back end in use; delete it or choose another tunnel "
                            "interface name",
                            name, observed.link->kind, observed.link_kind));
  }
  plan_link(desired.options, observed.link, out);
  out.uapi = plan_uapi(desired, observed.device.value_or(UapiDevice{}));
  return out;
}

}  // namespace fed::tunnel

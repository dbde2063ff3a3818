#pragma once
// The gateway tunnel's plan: from what the kernel and the WireGuard daemon have to what the
// federation asks for. Pure values in, changes out; tunnel_reconciler applies them.

#include <optional>
#include <vector>

#include "agent/node/os/link_manager.hpp"
#include "agent/node/tunnel/tunnel_config.hpp"
#include "agent/node/tunnel/uapi_text.hpp"
#include "agent/node/tunnel/wg_key.hpp"
#include "shared/result/result.hpp"

namespace fed::tunnel {

// The tunnel as it should be.
struct DesiredTunnel {
  TunnelOptions options;
  WgKey private_key;  // from key_file; never logged
  std::vector<TunnelPeer> peers;
};

// The tunnel as it is.
struct ObservedTunnel {
  bool daemon_running = false;
  std::optional<os::LinkState> link;  // the link named options.interface, if any
  std::optional<UapiDevice> device;   // the daemon's answer to get=1, when it runs
  std::string link_kind = "tun";      // the kind of link the daemon serves (link_kind())
};

// Applied in field order: delete the other back end's link, start the daemon, change the link,
// remove stale addresses, add ours, then one UAPI set request.
struct TunnelChanges {
  // Our marked link of the other back end's kind (the node switched between wireguard-go and
  // the kernel's WireGuard): it goes before ours is made under the same name.
  bool delete_stale_link = false;
  bool start_daemon = false;
  os::LinkSettings link;  // all empty: nothing to change
  std::vector<os::LinkAddress> delete_addresses;
  std::vector<os::LinkAddress> add_addresses;
  UapiSet uapi;

  bool empty() const {
    return !delete_stale_link && !start_daemon && link == os::LinkSettings{} &&
           delete_addresses.empty() && add_addresses.empty() && uapi.empty();
  }
};

// The UAPI text of a peer's settings as the daemon reports them, for comparison.
std::string endpoint_text(const TunnelPeer& peer);                  // "192.0.2.2:51820"
std::vector<std::string> allowed_ips_text(const TunnelPeer& peer);  // sorted, tunnel /32 too

// What must change in the daemon: its private key and port, removal of peers we no longer
// want, and each wanted peer's endpoint, keepalive and allowed IPs where they differ (allowed
// IPs compared as sets). Removals come first, so a range moving between peers lands last.
UapiSet plan_uapi(const DesiredTunnel& desired, const UapiDevice& observed);

// The whole plan. With no daemon, it is started and the link planned from scratch (wireguard-go
// creates it down, without address); our marked link of the other back end's kind is deleted
// first. Conflict when a link with our name exists that no daemon of ours serves and that is not
// such a leftover (another tool's device: the agent never takes it over), or a daemon answers
// but its link is gone (it is shutting down; retry).
Result<TunnelChanges> plan_tunnel(const DesiredTunnel& desired, const ObservedTunnel& observed);

}  // namespace fed::tunnel

#pragma once
// KernelWireguard: WireguardDaemon over the kernel's own WireGuard (Linux 5.6 and later, or a
// distribution module): the link is rtnetlink kind "wireguard", its configuration the generic
// netlink family (wireguard_genl). It answers the same UAPI text as wireguard-go, so the
// tunnel's planner and reconciler speak one protocol to both back ends. No process runs: the
// device "runs" while a link of that kind carrying the agent's marker exists.

#include "agent/node/os/wireguard_daemon.hpp"

namespace fed::os {

class KernelWireguard final : public WireguardDaemon {
 public:
  // True when `interface` is a WireGuard link with the agent's marker. An unmarked one is not
  // ours (wg-quick's, say): the planner then reports a Conflict instead of taking it over.
  Result<bool> running(std::string_view interface) override;
  // Creates the link (down, no address) and marks it in the same step, so a crash in between
  // cannot leave an unmarked link the next pass would refuse; Unavailable, saying how to load
  // the module, when the kernel has no WireGuard.
  Status start(std::string_view interface) override;
  // "get=1" and "set=1" requests, carried out over generic netlink.
  Result<std::string> exchange(std::string_view interface, std::string_view request) override;
  // Nothing to stop: the link is the device, and the reconciler deletes it when it is marked.
  Status stop(std::string_view interface) override;
  std::string_view link_kind() const override { return "wireguard"; }
};

// Whether the kernel's WireGuard can be used here (its generic netlink family resolves, which
// loads the module when the kernel has one on disk). The "auto" back end asks this once.
bool kernel_wireguard_available();

}  // namespace fed::os

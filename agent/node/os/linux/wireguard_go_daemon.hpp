#pragma once
// WireguardGoDaemon: WireguardDaemon over Debian's wireguard-go, the userspace WireGuard that
// works on any kernel with /dev/net/tun. The daemon is started in its daemonising mode: it
// creates the TUN link and its UAPI socket, then detaches, so it outlives an agent restart and
// traffic keeps flowing (as the rest of the datapath does on SIGTERM).

#include <chrono>
#include <string>

#include "agent/node/os/wireguard_daemon.hpp"

namespace fed::os {

struct WireguardGoSettings {
  std::string program = "wireguard-go";  // searched on PATH unless it holds a '/'
  // Where wireguard-go puts <interface>.sock; compiled into it, so this only says where to
  // look (Debian's: /var/run/wireguard).
  std::string socket_dir = "/var/run/wireguard";
  std::chrono::milliseconds start_timeout{10000};  // for the daemon to come up
  std::chrono::milliseconds uapi_timeout{5000};    // for one UAPI answer
  std::chrono::milliseconds stop_timeout{5000};    // SIGTERM, then SIGKILL after this
};

class WireguardGoDaemon final : public WireguardDaemon {
 public:
  explicit WireguardGoDaemon(WireguardGoSettings settings) : settings_(std::move(settings)) {}

  Result<bool> running(std::string_view interface) override;
  Status start(std::string_view interface) override;
  Result<std::string> exchange(std::string_view interface, std::string_view request) override;
  Status stop(std::string_view interface) override;
  std::string_view link_kind() const override { return "tun"; }

  // The UAPI socket path of `interface`.
  std::string socket_path(std::string_view interface) const;

 private:
  WireguardGoSettings settings_;
};

}  // namespace fed::os

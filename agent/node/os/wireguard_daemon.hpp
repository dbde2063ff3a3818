#pragma once
// WireguardDaemon: the WireGuard implementation serving one tunnel interface — starting it, one
// exchange of the cross-platform UAPI text protocol (wireguard.com/xplatform), and stopping it.
// Two implement it: wireguard-go, a process over a TUN device, and the kernel's (its link and
// generic netlink, adapted to the same text). The text itself is agent/node/tunnel/uapi_text's;
// this interface only carries it, so the planners stay free of sockets and processes.

#include <string>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::os {

class WireguardDaemon {
 public:
  virtual ~WireguardDaemon() = default;

  // Whether a daemon answers for `interface` (its UAPI socket accepts a connection).
  virtual Result<bool> running(std::string_view interface) = 0;
  // Starts a daemon for `interface` in the calling thread's network namespace. It creates the
  // TUN link (down, no address) and has returned once its UAPI socket listens.
  virtual Status start(std::string_view interface) = 0;
  // Sends one request (ending with its empty line) and returns the whole answer (ending with
  // "errno=N" and an empty line). NotFound when no daemon serves `interface`.
  virtual Result<std::string> exchange(std::string_view interface, std::string_view request) = 0;
  // Stops every daemon serving `interface` in the calling thread's network namespace (which
  // removes its TUN link) and removes its UAPI socket. Idempotent: nothing to stop is success.
  virtual Status stop(std::string_view interface) = 0;
  // The rtnetlink kind of the link it serves: "tun" for wireguard-go, "wireguard" for the
  // kernel. A link of our name and another kind is not this implementation's.
  virtual std::string_view link_kind() const = 0;
};

}  // namespace fed::os

#pragma once
// IcmpSocket: a raw ICMP socket (CAP_NET_RAW; the agent is privileged) owned by an Fd, for the
// tunnel's echo probe. It sees every ICMP packet the node receives, so readers match replies
// by identifier and source.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>

#include "shared/net/net_types.hpp"
#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::os {

class IcmpSocket final {
 public:
  // Permission when the process lacks CAP_NET_RAW.
  static Result<IcmpSocket> open();

  // Sends `message` (an ICMP message, header included) to `to`. Errors such as "network
  // unreachable" (no route while the tunnel is being set up) are returned, not thrown.
  Status send(net::Ipv4 to, std::span<const std::uint8_t> message);
  // Waits up to `timeout` for one packet and copies it into `buffer`; the bytes read, 0 when
  // nothing came in time.
  Result<std::size_t> receive(std::span<std::uint8_t> buffer, std::chrono::milliseconds timeout);

 private:
  explicit IcmpSocket(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

}  // namespace fed::os

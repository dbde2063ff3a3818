#pragma once
// ICMP echo messages for the tunnel's liveness probe (probe_history.hpp): the request the
// agent sends to a peer gateway's tunnel address, and the reply read back from a raw socket,
// which delivers the IPv4 header too. Pure.

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "shared/net/net_types.hpp"

namespace fed::tunnel {

inline constexpr std::size_t kEchoSize = 16;  // 8 bytes of header, 8 of payload

// An echo request (type 8) with identifier `id`, sequence `seq` and a fixed payload, checksum
// set.
std::array<std::uint8_t, kEchoSize> echo_request(std::uint16_t id, std::uint16_t seq);

struct EchoReply {
  net::Ipv4 source;
  std::uint16_t id = 0;
  std::uint16_t seq = 0;
};

// The echo reply (type 0) in `packet`, an IPv4 datagram as a raw ICMP socket reads it; nullopt
// for anything else (another ICMP type, a truncated or corrupt packet, a bad checksum).
std::optional<EchoReply> parse_echo_reply(std::span<const std::uint8_t> packet);

// The Internet checksum (RFC 1071) of `bytes`.
std::uint16_t internet_checksum(std::span<const std::uint8_t> bytes);

}  // namespace fed::tunnel

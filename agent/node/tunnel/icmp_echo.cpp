#include "agent/node/tunnel/icmp_echo.hpp"

namespace fed::tunnel {
namespace {

constexpr std::uint8_t kEchoRequest = 8;
constexpr std::uint8_t kEchoReply = 0;
constexpr std::uint8_t kProtocolIcmp = 1;
// Says whose echo it is in a capture: "kube-fed".
constexpr std::array<std::uint8_t, 8> kPayload{'k', 'u', 'b', 'e', '-', 'f', 'e', 'd'};

std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>(b[at] << 8 | b[at + 1]);
}

}  // namespace

std::uint16_t internet_checksum(std::span<const std::uint8_t> bytes) {
  std::uint32_t sum = 0;
  std::size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) sum += be16(bytes, i);
  if (i < bytes.size()) sum += static_cast<std::uint32_t>(bytes[i]) << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xffff);
}

std::array<std::uint8_t, kEchoSize> echo_request(std::uint16_t id, std::uint16_t seq) {
  std::array<std::uint8_t, kEchoSize> m{};
  m[0] = kEchoRequest;
  m[4] = static_cast<std::uint8_t>(id >> 8);
  m[5] = static_cast<std::uint8_t>(id);
  m[6] = static_cast<std::uint8_t>(seq >> 8);
  m[7] = static_cast<std::uint8_t>(seq);
  for (std::size_t i = 0; i < kPayload.size(); ++i) m[8 + i] = kPayload[i];
  const std::uint16_t sum = internet_checksum(m);
  m[2] = static_cast<std::uint8_t>(sum >> 8);
  m[3] = static_cast<std::uint8_t>(sum);
  return m;
}

std::optional<EchoReply> parse_echo_reply(std::span<const std::uint8_t> packet) {
  if (packet.size() < 20 || packet[0] >> 4 != 4) return std::nullopt;
  const std::size_t header = static_cast<std::size_t>(packet[0] & 0x0f) * 4;
  const std::size_t total = be16(packet, 2);
  if (header < 20 || total < header + 8 || total > packet.size()) return std::nullopt;
  if (packet[9] != kProtocolIcmp) return std::nullopt;
  const auto icmp = packet.subspan(header, total - header);
  if (icmp[0] != kEchoReply || icmp[1] != 0 || internet_checksum(icmp) != 0) return std::nullopt;
  EchoReply r;
  r.source.value = static_cast<std::uint32_t>(packet[12]) << 24 |
                   static_cast<std::uint32_t>(packet[13]) << 16 |
                   static_cast<std::uint32_t>(packet[14]) << 8 | packet[15];
  r.id = be16(icmp, 4);
  r.seq = be16(icmp, 6);
  return r;
}

}  // namespace fed::tunnel

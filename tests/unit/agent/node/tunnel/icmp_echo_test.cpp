// The tunnel probe's ICMP echo request and the reply parser.
#include "agent/node/tunnel/icmp_echo.hpp"

#include <doctest/doctest.h>

#include <vector>

namespace fed::tunnel {
namespace {

// The IPv4 datagram a raw socket would read for `icmp` from `source`.
std::vector<std::uint8_t> datagram(std::vector<std::uint8_t> icmp, std::uint32_t source) {
  std::vector<std::uint8_t> p(20 + icmp.size(), 0);
  p[0] = 0x45;
  const auto total = static_cast<std::uint16_t>(20 + icmp.size());
  p[2] = static_cast<std::uint8_t>(total >> 8);
  p[3] = static_cast<std::uint8_t>(total);
  p[8] = 64;
  p[9] = 1;
  p[12] = static_cast<std::uint8_t>(source >> 24);
  p[13] = static_cast<std::uint8_t>(source >> 16);
  p[14] = static_cast<std::uint8_t>(source >> 8);
  p[15] = static_cast<std::uint8_t>(source);
  for (std::size_t i = 0; i < icmp.size(); ++i) p[20 + i] = icmp[i];
  return p;
}

// The reply a peer's kernel makes of `request`: type 0, checksum fixed up.
std::vector<std::uint8_t> reply_to(const std::array<std::uint8_t, kEchoSize>& request) {
  std::vector<std::uint8_t> r(request.begin(), request.end());
  r[0] = 0;
  r[2] = r[3] = 0;
  const auto sum = internet_checksum(r);
  r[2] = static_cast<std::uint8_t>(sum >> 8);
  r[3] = static_cast<std::uint8_t>(sum);
  return r;
}

}  // namespace

TEST_CASE("the echo request: type 8, identifier, sequence, a valid checksum") {
  const auto m = echo_request(0x1234, 0xabcd);
  CHECK(m[0] == 8);
  CHECK(m[1] == 0);
  CHECK(m[4] == 0x12);
  CHECK(m[5] == 0x34);
  CHECK(m[6] == 0xab);
  CHECK(m[7] == 0xcd);
  CHECK(internet_checksum(m) == 0);  // a correct checksum sums to zero
}

TEST_CASE("the checksum of RFC 1071's example") {
  const std::vector<std::uint8_t> b{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  CHECK(internet_checksum(b) == static_cast<std::uint16_t>(~0xddf2 & 0xffff));
  const std::vector<std::uint8_t> odd{0x01};
  CHECK(internet_checksum(odd) == 0xfeff);
}

TEST_CASE("a reply is parsed with its source, identifier and sequence") {
  const auto p = datagram(reply_to(echo_request(7, 42)), 0xa9fe7f02);  // 169.254.127.2
  const auto r = parse_echo_reply(p);
  REQUIRE(r);
  CHECK(r->source.str() == "169.254.127.2");
  CHECK(r->id == 7);
  CHECK(r->seq == 42);
}

TEST_CASE("anything but a well-formed echo reply is ignored") {
  const auto good = datagram(reply_to(echo_request(7, 42)), 0x0a000001);
  auto request = datagram({echo_request(7, 42).begin(), echo_request(7, 42).end()}, 0x0a000001);
  CHECK_FALSE(parse_echo_reply(request));  // our own request, looped back
  auto corrupt = good;
  corrupt[28] ^= 0xff;  // payload changed, checksum not
  CHECK_FALSE(parse_echo_reply(corrupt));
  auto udp = good;
  udp[9] = 17;
  CHECK_FALSE(parse_echo_reply(udp));
  CHECK_FALSE(parse_echo_reply(std::span(good.data(), 30)));  // truncated
  auto long_header = good;
  long_header[0] = 0x4f;  // a 60-byte header the packet does not hold
  CHECK_FALSE(parse_echo_reply(long_header));
  CHECK_FALSE(parse_echo_reply(std::vector<std::uint8_t>{}));
}

}  // namespace fed::tunnel

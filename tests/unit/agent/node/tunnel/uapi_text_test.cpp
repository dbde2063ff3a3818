#include "agent/node/tunnel/uapi_text.hpp"

#include <doctest/doctest.h>

using namespace fed::tunnel;

namespace {

// An answer to get=1 in the shape wireguard-go writes it (wireguard.com/xplatform), with the
// fields this parser ignores (preshared_key, protocol_version, nanoseconds) left in.
constexpr std::string_view kGetAnswer =
    "private_key=e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a\n"
    "listen_port=51820\n"
    "public_key=b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33\n"
    "preshared_key=0000000000000000000000000000000000000000000000000000000000000000\n"
    "protocol_version=1\n"
    "endpoint=192.0.2.2:51820\n"
    "last_handshake_time_sec=1700000000\n"
    "last_handshake_time_nsec=123\n"
    "tx_bytes=38333\n"
    "rx_bytes=2224\n"
    "persistent_keepalive_interval=25\n"
    "allowed_ip=10.250.2.0/24\n"
    "allowed_ip=169.254.64.2/32\n"
    "public_key=58402e695ba1772b1cc9309755f043251ea77fdcf10fbe63989ceb7e19321376\n"
    "preshared_key=0000000000000000000000000000000000000000000000000000000000000000\n"
    "protocol_version=1\n"
    "last_handshake_time_sec=0\n"
    "last_handshake_time_nsec=0\n"
    "tx_bytes=0\n"
    "rx_bytes=0\n"
    "persistent_keepalive_interval=0\n"
    "errno=0\n"
    "\n";

WgKey key(std::string_view hex) {
  auto k = WgKey::from_hex(hex, "test");
  REQUIRE(k);
  return *k;
}

}  // namespace

TEST_CASE("a realistic get=1 answer") {
  CHECK(uapi_response_complete(kGetAnswer));
  auto d = parse_get_response(kGetAnswer);
  REQUIRE(d);
  REQUIRE(d->private_key);
  CHECK(d->private_key->hex() ==
        "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a");
  CHECK(d->listen_port == 51820);
  REQUIRE(d->peers.size() == 2);
  const auto& a = d->peers[0];
  CHECK(a.public_key.hex() == "b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33");
  CHECK(a.endpoint == "192.0.2.2:51820");
  CHECK(a.last_handshake_sec == 1700000000);
  CHECK(a.tx_bytes == 38333);
  CHECK(a.rx_bytes == 2224);
  CHECK(a.keepalive_seconds == 25);
  CHECK(a.allowed_ips == std::vector<std::string>{"10.250.2.0/24", "169.254.64.2/32"});
  const auto& b = d->peers[1];
  CHECK(b.endpoint.empty());
  CHECK(b.allowed_ips.empty());
  CHECK(b.last_handshake_sec == 0);
}

TEST_CASE("a fresh device: no key (all zero), no peers") {
  auto d = parse_get_response(
      "private_key=0000000000000000000000000000000000000000000000000000000000000000\n"
      "listen_port=0\nerrno=0\n\n");
  REQUIRE(d);
  CHECK_FALSE(d->private_key);
  CHECK(d->peers.empty());
  // wireguard-go leaves private_key out entirely when none was ever set.
  auto bare = parse_get_response("listen_port=41000\nerrno=0\n\n");
  REQUIRE(bare);
  CHECK_FALSE(bare->private_key);
  CHECK(bare->listen_port == 41000);
}

TEST_CASE("errno != 0, a malformed line, a missing errno and a bad number are errors") {
  auto refused = parse_set_response("errno=22\n\n");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message().find("errno=22") != std::string::npos);

  auto malformed = parse_get_response("listen_port=1\ngarbage\nerrno=0\n\n");
  REQUIRE_FALSE(malformed);
  CHECK(malformed.error().message().find("\"garbage\"") != std::string::npos);

  auto truncated = parse_get_response("listen_port=1\n");
  REQUIRE_FALSE(truncated);
  CHECK(truncated.error().message().find("without errno") != std::string::npos);

  auto not_number = parse_get_response("listen_port=http\nerrno=0\n\n");
  REQUIRE_FALSE(not_number);
  CHECK(not_number.error().message().find("listen_port=http") != std::string::npos);

  CHECK(parse_set_response("errno=0\n\n"));
  CHECK_FALSE(uapi_response_complete("listen_port=1\n"));
  CHECK_FALSE(uapi_response_complete("errno=0\n"));
  CHECK(uapi_response_complete("errno=0\n\n"));
}

namespace {

// Key and port, a removal, a new peer and an update of an existing one.
UapiSet mixed_set() {
  const auto priv = key("e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a");
  const auto gone = key("58402e695ba1772b1cc9309755f043251ea77fdcf10fbe63989ceb7e19321376");
  const auto added = key("b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33");
  const auto moved = key("662e14fd594556f522604703340351258903b64f35553763f19426ab2a515c58");
  UapiSet set;
  set.private_key = priv;
  set.listen_port = 51820;
  set.peers.push_back({.public_key = gone,
                       .remove = true,
                       .endpoint = std::nullopt,
                       .keepalive_seconds = std::nullopt,
                       .allowed_ips = std::nullopt});
  set.peers.push_back(
      {.public_key = added,
       .remove = false,
       .endpoint = "192.0.2.2:51820",
       .keepalive_seconds = 25,
       .allowed_ips = std::vector<std::string>{"10.250.2.0/24", "169.254.64.2/32"}});
  set.peers.push_back({.public_key = moved,
                       .remove = false,
                       .endpoint = "192.0.2.3:51821",
                       .keepalive_seconds = std::nullopt,
                       .allowed_ips = std::nullopt});
  return set;
}

}  // namespace

TEST_CASE("format_set_request: exact text for key, port, removal, a new peer and an update") {
  const UapiSet set = mixed_set();
  CHECK(format_set_request(set) ==
        "set=1\n"
        "private_key=e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a\n"
        "listen_port=51820\n"
        "public_key=58402e695ba1772b1cc9309755f043251ea77fdcf10fbe63989ceb7e19321376\n"
        "remove=true\n"
        "public_key=b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33\n"
        "endpoint=192.0.2.2:51820\n"
        "persistent_keepalive_interval=25\n"
        "replace_allowed_ips=true\n"
        "allowed_ip=10.250.2.0/24\n"
        "allowed_ip=169.254.64.2/32\n"
        "public_key=662e14fd594556f522604703340351258903b64f35553763f19426ab2a515c58\n"
        "endpoint=192.0.2.3:51821\n"
        "\n");
  CHECK(format_set_request(UapiSet{}) == "set=1\n\n");
  CHECK(UapiSet{}.empty());
  CHECK_FALSE(set.empty());
}

TEST_CASE("parse_set_request reads what format_set_request writes") {
  const UapiSet set = mixed_set();
  auto back = parse_set_request(format_set_request(set));
  REQUIRE(back);
  CHECK(back->private_key == set.private_key);
  CHECK(back->listen_port == set.listen_port);
  CHECK(back->peers == set.peers);
  auto empty = parse_set_request("set=1\n\n");
  REQUIRE(empty);
  CHECK(empty->empty());
  // An emptied allowed-IP list is a replacement by nothing, not "leave as is".
  UapiSet cleared;
  cleared.peers.push_back({.public_key = set.peers[1].public_key,
                           .remove = false,
                           .endpoint = std::nullopt,
                           .keepalive_seconds = std::nullopt,
                           .allowed_ips = std::vector<std::string>{}});
  auto c = parse_set_request(format_set_request(cleared));
  REQUIRE(c);
  REQUIRE(c->peers.size() == 1);
  CHECK(c->peers[0].allowed_ips == std::vector<std::string>{});
}

TEST_CASE("parse_set_request refuses what it cannot carry, without quoting secrets") {
  const std::string peer =
      "public_key=b85996fecc9c7f1fc6d2572a76eda11d59bcd20be8e543b15ce4bd85a8e75a33\n";
  const std::string secret = "e84b5a6d2717c1003a13b431570353dbaca9146cf150c5f8575680feba52027a";
  for (const std::string& text :
       std::vector<std::string>{"get=1\n\n", "set=1\nlisten_port=1\n", "set=1\nfwmark=7\n\n",
                                "set=1\n" + peer + "preshared_key=" + secret + "\n\n",
                                "set=1\n" + peer + "allowed_ip=10.0.0.0/8\n\n",
                                "set=1\n" + secret + "\n\n", "set=1\nlisten_port=http\n\n"}) {
    auto r = parse_set_request(text);
    INFO(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().message().find(secret) == std::string::npos);
  }
}

TEST_CASE("format_get_response is read back by parse_get_response") {
  auto d = parse_get_response(kGetAnswer);
  REQUIRE(d);
  const std::string text = format_get_response(*d);
  CHECK(uapi_response_complete(text));
  auto back = parse_get_response(text);
  REQUIRE(back);
  CHECK(back->private_key == d->private_key);
  CHECK(back->listen_port == d->listen_port);
  REQUIRE(back->peers.size() == d->peers.size());
  for (std::size_t i = 0; i < d->peers.size(); ++i) {
    const auto& a = back->peers[i];
    const auto& b = d->peers[i];
    CHECK(a.public_key == b.public_key);
    CHECK(a.endpoint == b.endpoint);
    CHECK(a.allowed_ips == b.allowed_ips);
    CHECK(a.keepalive_seconds == b.keepalive_seconds);
    CHECK(a.last_handshake_sec == b.last_handshake_sec);
    CHECK(a.rx_bytes == b.rx_bytes);
    CHECK(a.tx_bytes == b.tx_bytes);
  }
  // A device without a key says nothing about one.
  CHECK(format_get_response(UapiDevice{}) == "listen_port=0\nerrno=0\n\n");
}

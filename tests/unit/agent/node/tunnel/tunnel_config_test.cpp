#include "agent/node/tunnel/tunnel_config.hpp"

#include <doctest/doctest.h>

#include "tests/unit/agent/node/tunnel/sample_tunnel.hpp"

using namespace fed::tunnel;
using namespace fed::tunnel::testing;

namespace {

std::string options_error(const TunnelOptions& o) {
  auto s = validate_options(o);
  REQUIRE_FALSE(s);
  CHECK(s.error().code() == fed::ErrorCode::Invalid);
  return s.error().message();
}

std::string peers_error(const DesiredTunnel& d) {
  auto s = validate_peers(d.peers, d.options, *public_key_of(d.private_key));
  REQUIRE_FALSE(s);
  CHECK(s.error().code() == fed::ErrorCode::Invalid);
  return s.error().message();
}

}  // namespace

TEST_CASE("valid options and peers pass") {
  auto d = sample_desired();
  CHECK(validate_options(d.options));
  CHECK(validate_peers(d.peers, d.options, *public_key_of(d.private_key)));
  CHECK(validate_peers({}, d.options, *public_key_of(d.private_key)));
}

TEST_CASE("validate_options names the field and the fix") {
  auto o = sample_desired().options;
  auto bad = o;
  bad.interface = "a-name-that-is-too-long";
  CHECK(options_error(bad).find("tunnel interface \"a-name-that-is-too-long\"") == 0);
  bad = o;
  bad.interface = "fed/wg";
  CHECK(options_error(bad).find("without '/'") != std::string::npos);
  bad = o;
  bad.listen_port = 0;
  CHECK(options_error(bad).find("51820") != std::string::npos);
  bad = o;
  bad.address = {};
  CHECK(options_error(bad).find("tunnel address is not set") == 0);
  bad = o;
  bad.mtu = 576;
  CHECK(options_error(bad).find("MTU 576") != std::string::npos);
  bad = o;
  bad.prefix_length = 0;
  CHECK(options_error(bad).find("prefix length 0") != std::string::npos);
  bad = o;
  bad.private_key_file.clear();
  CHECK(options_error(bad).find("private key file") != std::string::npos);
}

TEST_CASE("validate_peers: bad and duplicate keys, our own key") {
  auto d = sample_desired();
  d.peers[1].public_key = "not-a-key";
  CHECK(peers_error(d).find("tunnel peer 1 (\"c\") publicKey") == 0);

  d = sample_desired();
  d.peers[1].public_key = d.peers[0].public_key;
  CHECK(peers_error(d).find("also another peer's") != std::string::npos);

  d = sample_desired();
  d.peers[0].public_key = public_b64(1);  // gateway a's own
  auto own = peers_error(d);
  CHECK(own.find("tunnel peer 0 (\"b\")") == 0);
  CHECK(own.find("own key") != std::string::npos);
}

TEST_CASE("validate_peers: endpoints and tunnel addresses") {
  auto d = sample_desired();
  d.peers[0].endpoint = {};
  CHECK(peers_error(d).find("endpoint is not set") != std::string::npos);

  d = sample_desired();
  d.peers[0].tunnel_address = d.options.address;
  CHECK(peers_error(d).find("equal to ours") != std::string::npos);

  d = sample_desired();
  d.peers[0].tunnel_address = ip("169.254.200.2");
  auto outside = peers_error(d);
  CHECK(outside.find("outside our tunnel prefix 169.254.64.0/18") != std::string::npos);
}

TEST_CASE("validate_peers: overlapping ranges and tunnel addresses between peers") {
  auto d = sample_desired();
  d.peers[1].ranges = {cidr("10.250.2.128/25")};  // inside b's 10.250.2.0/24
  auto overlap = peers_error(d);
  CHECK(overlap.find("tunnel peer 1 (\"c\")") == 0);
  CHECK(overlap.find("10.250.2.128/25 overlaps 10.250.2.0/24 of tunnel peer 0 (\"b\")") !=
        std::string::npos);

  d = sample_desired();
  d.peers[1].tunnel_address = d.peers[0].tunnel_address;
  CHECK(peers_error(d).find("169.254.64.2/32 overlaps 169.254.64.2/32") != std::string::npos);

  d = sample_desired();
  d.peers[1].ranges = {cidr("169.254.64.0/24")};  // would swallow b's tunnel address
  CHECK(peers_error(d).find("overlaps 169.254.64.2/32") != std::string::npos);
}

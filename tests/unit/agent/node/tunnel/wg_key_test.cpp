#include "agent/node/tunnel/wg_key.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace fed::tunnel;

namespace {

WgKey hex_key(std::string_view hex) {
  auto k = WgKey::from_hex(hex, "test");
  REQUIRE(k);
  return *k;
}

}  // namespace

TEST_CASE("public_key_of matches the X25519 test vectors of RFC 7748 section 6.1") {
  // Alice and Bob's private keys and X25519(k, 9), verbatim from the RFC.
  const auto alice = hex_key("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  const auto bob = hex_key("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
  auto alice_pub = public_key_of(alice);
  auto bob_pub = public_key_of(bob);
  REQUIRE(alice_pub);
  REQUIRE(bob_pub);
  CHECK(alice_pub->hex() == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
  CHECK(bob_pub->hex() == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
}

TEST_CASE("base64 and hex round trips") {
  const auto alice = hex_key("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
  const std::string b64 = alice.base64();
  CHECK(b64.size() == 44);
  CHECK(b64.back() == '=');
  auto back = WgKey::from_base64(b64, "key");
  REQUIRE(back);
  CHECK(*back == alice);

  auto upper =
      WgKey::from_hex("77076D0A7318A57D3C16C17251B26645DF4C2F87EBC0992AB177FBA51DB92C2A", "key");
  REQUIRE(upper);
  CHECK(*upper == alice);
  CHECK(upper->hex() == "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");

  CHECK(WgKey{}.is_zero());
  CHECK_FALSE(alice.is_zero());
}

TEST_CASE("bad base64 names the field and says what a key looks like") {
  auto short_key = WgKey::from_base64("abc=", "peer b publicKey");
  REQUIRE_FALSE(short_key);
  CHECK(short_key.error().code() == fed::ErrorCode::Invalid);
  CHECK(short_key.error().message().find("peer b publicKey") == 0);
  CHECK(short_key.error().message().find("\"abc=\"") != std::string::npos);
  CHECK(short_key.error().message().find("wg genkey") != std::string::npos);

  // 44 characters, but '!' is not base64.
  const std::string bad_char(43, '!');
  auto bad = WgKey::from_base64(bad_char + "=", "peer b publicKey");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("peer b publicKey") == 0);

  // A private key's value never reaches the message.
  const std::string secret = "SECRETSECRETSECRETSECRETSECRETSECRETSECRET=";
  auto priv = WgKey::from_base64(secret, "private key file", KeySecrecy::Private);
  REQUIRE_FALSE(priv);
  CHECK(priv.error().message().find("SECRET") == std::string::npos);
  CHECK(priv.error().message().find("private key file") == 0);
}

TEST_CASE("bad hex names the field and never quotes the value") {
  auto short_hex = WgKey::from_hex("abcd", "wireguard UAPI private_key");
  REQUIRE_FALSE(short_hex);
  CHECK(short_hex.error().message().find("wireguard UAPI private_key") == 0);
  CHECK(short_hex.error().message().find("abcd") == std::string::npos);

  std::string digits(64, 'a');
  digits[7] = 'g';
  auto bad = WgKey::from_hex(digits, "wireguard UAPI public_key");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("offset 7") != std::string::npos);
}

TEST_CASE("generated keys are clamped as wg genkey does and differ each time") {
  std::set<WgKey> seen;
  for (int i = 0; i < 8; ++i) {
    auto k = generate_private_key();
    REQUIRE(k);
    CHECK((k->bytes[0] & 7) == 0);
    CHECK((k->bytes[31] & 128) == 0);
    CHECK((k->bytes[31] & 64) == 64);
    CHECK(seen.insert(*k).second);
    CHECK(public_key_of(*k));
  }
}

#include "agent/node/tunnel/wg_key.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fmt/format.h>

#include <algorithm>

#include "shared/pki/openssl_error.hpp"
#include "shared/raii/c_handle.hpp"
#include "shared/util/base64.hpp"

namespace fed::tunnel {
namespace {

using pki::openssl_error;

using PkeyHandle = CHandle<EVP_PKEY, EVP_PKEY_free>;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<WgKey> WgKey::from_base64(std::string_view text, std::string_view field,
                                 KeySecrecy secrecy) {
  const auto invalid = [&](std::string_view why) {
    const std::string shown = secrecy == KeySecrecy::Public
                                  ? fmt::format("\"{}\"", text)
                                  : fmt::format("the {}-character value", text.size());
    return fail(ErrorCode::Invalid,
                fmt::format("{}: {} is not a WireGuard key ({}); a key is 32 bytes in base64, "
                            "44 characters ending in '=', as `wg genkey` or `wg pubkey` print it",
                            field, shown, why));
  };
  if (text.size() != 44 || text.back() != '=') return invalid("wrong length");
  auto raw = util::base64_decode(text);
  if (!raw) return invalid(raw.error().message());
  if (raw->size() != 32) return invalid("decodes to the wrong number of bytes");
  WgKey key;
  std::copy(raw->begin(), raw->end(), key.bytes.begin());
  return key;
}

Result<WgKey> WgKey::from_hex(std::string_view text, std::string_view field) {
  if (text.size() != 64) {
    return fail(
        ErrorCode::Invalid,
        fmt::format("{}: a hex WireGuard key has 64 hex digits, this one {}", field, text.size()));
  }
  WgKey key;
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = hex_value(text[2 * i]);
    const int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return fail(ErrorCode::Invalid,
                  fmt::format("{}: not a hex WireGuard key (bad digit at offset {})", field,
                              hi < 0 ? 2 * i : 2 * i + 1));
    }
    key.bytes[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return key;
}

std::string WgKey::base64() const {
  return util::base64_encode(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string WgKey::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (auto b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xf]);
  }
  return out;
}

bool WgKey::is_zero() const {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

Result<WgKey> generate_private_key() {
  WgKey key;
  if (RAND_priv_bytes(key.bytes.data(), static_cast<int>(key.bytes.size())) != 1) {
    return fail(ErrorCode::Internal, "generate a WireGuard private key: " + openssl_error());
  }
  // RFC 7748 clamping, so the stored key is exactly what `wg genkey` would have written.
  key.bytes[0] &= 248;
  key.bytes[31] = static_cast<std::uint8_t>((key.bytes[31] & 127) | 64);
  return key;
}

Result<WgKey> public_key_of(const WgKey& private_key) {
  PkeyHandle pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, private_key.bytes.data(),
                                               private_key.bytes.size()));
  if (!pkey) {
    return fail(ErrorCode::Internal, "load the WireGuard private key: " + openssl_error());
  }
  WgKey pub;
  std::size_t len = pub.bytes.size();
  if (EVP_PKEY_get_raw_public_key(pkey.get(), pub.bytes.data(), &len) != 1 || len != 32) {
    return fail(ErrorCode::Internal, "derive the WireGuard public key: " + openssl_error());
  }
  return pub;
}

}  // namespace fed::tunnel

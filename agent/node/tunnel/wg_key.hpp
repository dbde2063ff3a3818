#pragma once
// WireGuard keys: 32-byte Curve25519 (X25519) keys, shown base64-encoded as `wg genkey` /
// `wg pubkey` print them and hex-encoded on wireguard-go's UAPI socket.

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::tunnel {

// Whether a key may appear in an error message: a private key must never reach a log.
enum class KeySecrecy { Public, Private };

struct WgKey {
  std::array<std::uint8_t, 32> bytes{};

  // Parses the 44-character base64 form; Invalid names `field` and says what a key looks like,
  // quoting `text` only for a Public key.
  static Result<WgKey> from_base64(std::string_view text, std::string_view field,
                                   KeySecrecy secrecy = KeySecrecy::Public);
  // Parses the 64-character lower- or upper-case hex form of the UAPI protocol; Invalid names
  // `field` and never quotes `text` (the UAPI carries the private key in this form).
  static Result<WgKey> from_hex(std::string_view text, std::string_view field);

  std::string base64() const;
  std::string hex() const;  // lower case, as the UAPI protocol writes it
  // All zero: the UAPI's way of saying "no key".
  bool is_zero() const;
  auto operator<=>(const WgKey&) const = default;
};

// A new private key from OpenSSL's CSPRNG, clamped as RFC 7748 and `wg genkey` do.
Result<WgKey> generate_private_key();

// The public key of `private_key` (X25519 scalar multiplication of the base point).
Result<WgKey> public_key_of(const WgKey& private_key);

}  // namespace fed::tunnel

#include "shared/pki/random_token.hpp"

#include <openssl/rand.h>

#include <vector>

#include "shared/pki/openssl_error.hpp"

namespace fed::pki {

Result<std::string> random_token(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) {
    return fail(ErrorCode::Internal, "random token: " + openssl_error());
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * bytes);
  for (unsigned char b : raw) {
    text.push_back(kHex[b >> 4]);
    text.push_back(kHex[b & 0x0f]);
  }
  return text;
}

}  // namespace fed::pki

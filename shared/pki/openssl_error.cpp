#include "shared/pki/openssl_error.hpp"

#include <openssl/err.h>

namespace fed::pki {

std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

}  // namespace fed::pki

#pragma once
// A secret shared by two ends the plugin starts (the join probe's listener and dialler): random
// bytes from OpenSSL's CSPRNG, as lowercase hex.

#include <cstddef>
#include <string>

#include "shared/result/result.hpp"

namespace fed::pki {

// `bytes` random bytes as 2*`bytes` hex digits. Internal when the CSPRNG fails.
Result<std::string> random_token(std::size_t bytes = 16);

}  // namespace fed::pki

#pragma once
// Standard base64 (RFC 4648 section 4, with padding), as kubeconfig *-data fields and
// ExecCredential cluster info use it.

#include <string>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::util {

// Encodes `data` as padded standard base64 on one line.
std::string base64_encode(std::string_view data);

// Decodes padded standard base64; CR and LF are skipped like Go's StdEncoding does. An Invalid
// error names the offending byte offset (the caller adds which field it was).
Result<std::string> base64_decode(std::string_view text);

}  // namespace fed::util

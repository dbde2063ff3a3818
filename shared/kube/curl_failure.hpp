#pragma once
// Turning a failed libcurl transfer into one ApiError line that names the server and the cause
// ("cannot reach https://10.0.0.1:6443 (cluster \"c1\"): connection refused"), and deciding which
// TransportFailure it is (what retry_policy.hpp may retry). Pure: the caller extracts the facts
// from curl, so this header needs no curl types.

#include <string>
#include <string_view>

#include "shared/kube/api_error.hpp"

namespace fed::kube {

// What is known about a failed transfer.
struct CurlFailureFacts {
  int curl_code = 0;          // the CURLcode
  long os_errno = 0;          // CURLINFO_OS_ERRNO
  bool nothing_sent = false;  // the request never started (CURLINFO_PRETRANSFER_TIME == 0)
  bool cancelled = false;     // stop requested or the body handler declined
  std::string detail;         // curl's error buffer, or curl_easy_strerror
};

// `label` is how the server is named: "https://host:port (cluster \"c1\")".
ApiError classify_curl_failure(const CurlFailureFacts& facts, const std::string& label);

}  // namespace fed::kube

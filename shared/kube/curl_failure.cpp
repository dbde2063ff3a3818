#include "shared/kube/curl_failure.hpp"

#include <curl/curl.h>

#include <cctype>
#include <cstring>

namespace fed::kube {
namespace {

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

ApiError classify_curl_failure(const CurlFailureFacts& f, const std::string& label) {
  if (f.cancelled || f.curl_code == CURLE_ABORTED_BY_CALLBACK) {
    return ApiError::transport(TransportFailure::Cancelled, "request to " + label + " cancelled");
  }
  const std::string& detail = f.detail;
  switch (f.curl_code) {
    case CURLE_COULDNT_CONNECT: {
      // "connection refused" reads better than curl's "Failed to connect to ... after 0 ms".
      const std::string why =
          f.os_errno != 0 ? lower_first(std::strerror(static_cast<int>(f.os_errno))) : detail;
      return ApiError::transport(TransportFailure::Connect, "cannot reach " + label + ": " + why);
    }
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return ApiError::transport(TransportFailure::Connect,
                                 "cannot reach " + label + ": " + lower_first(detail));
    case CURLE_OPERATION_TIMEDOUT:
      if (f.nothing_sent) {
        return ApiError::transport(TransportFailure::Connect,
                                   "cannot reach " + label + ": connection timed out");
      }
      return ApiError::transport(TransportFailure::Timeout,
                                 "no complete response from " + label +
                                     " within the request timeout; raise --request-timeout or "
                                     "check the server's load");
    case CURLE_PEER_FAILED_VERIFICATION:
      return ApiError::transport(TransportFailure::Tls,
                                 "cannot verify the certificate of " + label + ": " + detail +
                                     "; check certificate-authority-data and tls-server-name");
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
      return ApiError::transport(TransportFailure::Tls,
                                 "TLS handshake with " + label + " failed: " + detail);
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      if (f.nothing_sent) {
        return ApiError::transport(TransportFailure::Connect,
                                   "cannot reach " + label + ": " + lower_first(detail));
      }
      return ApiError::transport(TransportFailure::Interrupted,
                                 "connection to " + label + " broke: " + lower_first(detail));
    default:
      return ApiError::transport(TransportFailure::Other,
                                 "request to " + label + " failed: " + lower_first(detail));
  }
}

}  // namespace fed::kube

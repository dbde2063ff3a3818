#pragma once
// HttpTransport: one HTTP exchange with the API server of a RestConfig over libcurl — TLS from
// in-memory PEM, tls-server-name, proxy, basic auth, client certificates, HTTP/2, keep-alive
// connection reuse, streaming bodies and prompt cancellation. No retries and no bearer tokens:
// RestClient (rest_client.hpp) adds those. No curl type appears in this header.

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shared/kube/api_result.hpp"
#include "shared/kube/rest_config.hpp"

namespace fed::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // path and query, starting with '/', appended to RestConfig::server
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. {"Accept", "application/json"}
  std::string body;
  // < 0: RestConfig::request_timeout; 0: none (watch streams); > 0: this request's limit.
  std::chrono::milliseconds timeout{-1};
  // When set, a 2xx body is passed here chunk by chunk as it arrives instead of being buffered;
  // returning false ends the transfer (TransportFailure::Cancelled). Error bodies stay buffered.
  std::function<bool(std::string_view)> on_data;
  // Requesting stop ends the transfer within milliseconds, also while connecting.
  std::stop_token stop;
};

struct HttpResponse {
  int status = 0;
  std::string body;  // empty when streamed to on_data
  std::string content_type;
  std::string retry_after;         // the raw Retry-After header, if any
  bool reused_connection = false;  // true when no new connection was opened (keep-alive)
  std::string http_version;        // "1.1" or "2"
};

class HttpTransport final {
 public:
  // Validates the config (server URL, proxy) and prepares the shared state. Invalid errors name
  // the cluster and the bad field.
  static Result<std::unique_ptr<HttpTransport>> create(const RestConfig& config);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Performs one exchange. Any HTTP status is a value; only failures without a response are
  // errors (ApiError::transport, http_status 0), e.g. "cannot reach https://127.0.0.1:6443
  // (cluster "c1"): connection refused". Thread-safe: concurrent calls use separate handles.
  ApiResult<HttpResponse> perform(const HttpRequest& request);

  // "https://host:port (cluster \"name\")": how messages name this server.
  const std::string& server_label() const;

 private:
  struct State;
  explicit HttpTransport(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace fed::kube

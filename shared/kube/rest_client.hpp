#pragma once
// RestClient: requests to one API server with everything a well-behaved client does around
// the transport — bearer tokens (refreshed once on 401), a client-side QPS limit, retries with
// jittered exponential backoff on 429/5xx/connection errors honouring Retry-After, and Status
// errors decoded into ApiError. Resource-level verbs live in DynamicClient (dynamic_client.hpp).

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "shared/kube/api_result.hpp"
#include "shared/kube/http_transport.hpp"
#include "shared/kube/rate_limiter.hpp"
#include "shared/kube/rest_config.hpp"
#include "shared/kube/retry_policy.hpp"

namespace fed::kube {

struct ApiRequest {
  std::string method = "GET";
  std::string path;   // "/api/v1/namespaces/default/pods"; no query
  std::string query;  // encoded, without '?' (Query::str())
  std::string body;
  std::string content_type;  // of the body; "application/json" when a body is set and this is empty
  std::string accept = "application/json";
  // Whether a retry after the request may have reached the server is safe. Unset: GET, HEAD,
  // PUT and DELETE are idempotent; POST and PATCH are not.
  std::optional<Idempotency> idempotency;
  std::chrono::milliseconds timeout{-1};  // < 0: RestConfig::request_timeout
  std::stop_token stop;                   // cancels the request and any backoff wait
};

struct RestClientOptions {
  int max_retries = 5;  // attempts after the first one
  BackoffPolicy backoff{std::chrono::milliseconds(200), std::chrono::milliseconds(30'000), 2.0};
  std::chrono::seconds max_retry_after{60};  // longer Retry-After values are capped
  // A write refused by an admission policy whose parameter kind the API server has not
  // resolved yet (is_unresolved_policy_param) is retried this often for this long: its
  // discovery cache is reset every 30 s.
  std::chrono::milliseconds unresolved_policy_interval{1000};
  std::chrono::milliseconds unresolved_policy_budget{35'000};
};

class RestClient final {
 public:
  // Builds the transport for `config`; Invalid errors name the bad field of the cluster.
  static Result<std::shared_ptr<RestClient>> create(RestConfig config,
                                                    RestClientOptions options = {});

  // Sends with auth, rate limit and retries; a non-2xx final response is an ApiError whose
  // message starts with "<METHOD> <path>" (connection failures are one line naming the server).
  ApiResult<HttpResponse> send(const ApiRequest& request);
  // send() and decode the body as JSON (Internal error on a malformed body).
  ApiResult<nlohmann::json> send_json(const ApiRequest& request);
  // GET of an arbitrary path ("/version", "/api/v1/nodes/n1/proxy/configz"); returns the body.
  ApiResult<std::string> get_raw(std::string_view path_and_query);

  // A streaming request (watch): auth, rate limit and a 401 refresh, but no retries — the
  // caller's loop decides. 2xx body chunks go to `on_data` (return false to stop); a non-2xx
  // status is an ApiError. Returns when the server ends the stream, on stop, or on error
  // (TransportFailure::Cancelled when stopped by `request.stop` or `on_data`).
  ApiResult<void> stream(const ApiRequest& request,
                         const std::function<bool(std::string_view)>& on_data);

  const RestConfig& config() const { return config_; }
  // "https://host:port (cluster \"c\")": how messages name the server.
  const std::string& server_label() const { return transport_->server_label(); }

 private:
  RestClient(RestConfig config, RestClientOptions options, std::unique_ptr<HttpTransport> t);
  // Adds the Authorization header; an error names the credential source that failed.
  ApiResult<void> authorize(HttpRequest& http) const;
  HttpRequest to_http(const ApiRequest& request) const;
  // The transport's answer; at trace level (-v=6+) one line per request, as kubectl's.
  ApiResult<HttpResponse> perform(const HttpRequest& http);
  // Waits for a rate-limit token; false if stopped while waiting.
  bool wait_for_token(const std::stop_token& stop);

  RestConfig config_;
  RestClientOptions options_;
  std::unique_ptr<HttpTransport> transport_;
  TokenBucket limiter_;
};

}  // namespace fed::kube

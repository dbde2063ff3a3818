#include "shared/kube/rest_client.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "shared/kube/interruptible_sleep.hpp"

namespace fed::kube {
namespace {

Idempotency default_idempotency(std::string_view method) {
  if (method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE") {
    return Idempotency::Idempotent;
  }
  return Idempotency::NonIdempotent;
}

bool is_success(int status) {
  return status >= 200 && status < 300;
}

ApiError cancelled(const std::string& what) {
  return ApiError::transport(TransportFailure::Cancelled, what + ": cancelled");
}

}  // namespace

RestClient::RestClient(RestConfig config, RestClientOptions options,
                       std::unique_ptr<HttpTransport> t)
    : config_(std::move(config)),
      options_(options),
      transport_(std::move(t)),
      limiter_(config_.qps, config_.burst) {}

Result<std::shared_ptr<RestClient>> RestClient::create(RestConfig config,
                                                       RestClientOptions options) {
  FED_ASSIGN_OR_RETURN(auto transport, HttpTransport::create(config));
  return std::shared_ptr<RestClient>(
      new RestClient(std::move(config), options, std::move(transport)));
}

ApiResult<void> RestClient::authorize(HttpRequest& http) const {
  if (!config_.credentials) return {};
  auto token = config_.credentials->token();
  if (!token) {
    return ApiError::from_error(
        std::move(token).error().with_context("getting credentials for " + server_label()));
  }
  if (!token->empty()) http.headers.emplace_back("Authorization", "Bearer " + *token);
  return {};
}

HttpRequest RestClient::to_http(const ApiRequest& r) const {
  HttpRequest http;
  http.method = r.method;
  http.path = r.path + (r.query.empty() ? "" : "?" + r.query);
  if (!r.accept.empty()) http.headers.emplace_back("Accept", r.accept);
  if (!r.body.empty() || !r.content_type.empty()) {
    http.headers.emplace_back("Content-Type",
                              r.content_type.empty() ? "application/json" : r.content_type);
  }
  http.body = r.body;
  http.timeout = r.timeout;
  http.stop = r.stop;
  return http;
}

ApiResult<HttpResponse> RestClient::perform(const HttpRequest& http) {
  if (!spdlog::should_log(spdlog::level::trace)) return transport_->perform(http);
  // kubectl -v=6's line: every request, answered or not, with its time.
  const auto sent = std::chrono::steady_clock::now();
  auto result = transport_->perform(http);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent)
          .count();
  spdlog::trace("{} {}{} {} in {} ms", http.method, server_label(), http.path,
                result ? std::to_string(result->status) : result.error().message(), ms);
  return result;
}

bool RestClient::wait_for_token(const std::stop_token& stop) {
  return sleep_unless_stopped(limiter_.reserve(), stop);
}

ApiResult<HttpResponse> RestClient::send(const ApiRequest& request) {
  const std::string what = request.method + " " + request.path;
  const Idempotency idem = request.idempotency.value_or(default_idempotency(request.method));
  Backoff backoff(options_.backoff);
  bool reauthenticated = false;
  int retries = 0;
  std::optional<std::chrono::steady_clock::time_point> policy_refused_since;
  while (true) {
    if (!wait_for_token(request.stop)) return cancelled(what);
    HttpRequest http = to_http(request);
    FED_API_TRY(authorize(http));
    auto result = perform(http);

    std::chrono::milliseconds delay{0};
    if (!result) {
      ApiError err = std::move(result).error();
      const bool retry =
          retries < options_.max_retries && is_retryable_transport(err.transport_failure(), idem);
      if (!retry) {
        // "cannot reach ..." is already the whole story; other failures say what was asked.
        if (err.transport_failure() != TransportFailure::Connect) err.add_context(what);
        return err;
      }
      spdlog::debug("{}: {}; retrying", what, err.message());
      delay = backoff.next();
    } else {
      HttpResponse& resp = *result;
      if (is_success(resp.status)) return std::move(resp);
      if (resp.status == 401 && config_.credentials && !reauthenticated) {
        // The token may have expired or rotated: fetch a fresh one once.
        reauthenticated = true;
        config_.credentials->invalidate();
        continue;
      }
      ApiError err = ApiError::from_response(resp.status, resp.body);
      if (is_unresolved_policy_param(resp.status, err.message())) {
        const auto now = std::chrono::steady_clock::now();
        if (!policy_refused_since) {
          policy_refused_since = now;
          spdlog::warn(
              "{}: {}: the API server has not resolved an admission policy's parameter "
              "kind yet (after a start it reloads kinds every 30 s); retrying for up "
              "to {} s",
              server_label(), what, options_.unresolved_policy_budget.count() / 1000);
        }
        if (now - *policy_refused_since < options_.unresolved_policy_budget) {
          if (!sleep_unless_stopped(options_.unresolved_policy_interval, request.stop)) {
            return cancelled(what);
          }
          continue;
        }
      }
      const auto header = parse_retry_after(resp.retry_after);
      if (header) err.set_retry_after(*header);
      const bool retry = retries < options_.max_retries &&
                         is_retryable_status(resp.status, idem, err.retry_after().has_value());
      if (!retry) return std::move(err.add_context(what));
      if (err.retry_after()) {
        delay = std::min<std::chrono::milliseconds>(*err.retry_after(), options_.max_retry_after);
        backoff.next();  // keep the schedule moving for later attempts without Retry-After
      } else {
        delay = backoff.next();
      }
      spdlog::debug("{}: HTTP {} {}; retrying in {} ms", what, resp.status, err.reason(),
                    delay.count());
    }
    ++retries;
    if (!sleep_unless_stopped(delay, request.stop)) return cancelled(what);
  }
}

ApiResult<nlohmann::json> RestClient::send_json(const ApiRequest& request) {
  FED_API_ASSIGN_OR_RETURN(HttpResponse resp, send(request));
  if (resp.body.empty()) return nlohmann::json();
  auto j = nlohmann::json::parse(resp.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return ApiError::from_error(Error(ErrorCode::Internal, request.method + " " + request.path +
                                                               ": the server returned a body that "
                                                               "is not JSON (content type \"" +
                                                               resp.content_type + "\")"));
  }
  return j;
}

ApiResult<std::string> RestClient::get_raw(std::string_view path_and_query) {
  ApiRequest r;
  const auto q = path_and_query.find('?');
  r.path = std::string(path_and_query.substr(0, q));
  if (q != std::string_view::npos) r.query = std::string(path_and_query.substr(q + 1));
  r.accept = "application/json, */*";
  FED_API_ASSIGN_OR_RETURN(HttpResponse resp, send(r));
  return std::move(resp.body);
}

ApiResult<void> RestClient::stream(const ApiRequest& request,
                                   const std::function<bool(std::string_view)>& on_data) {
  const std::string what = request.method + " " + request.path;
  bool reauthenticated = false;
  while (true) {
    if (!wait_for_token(request.stop)) return cancelled(what);
    HttpRequest http = to_http(request);
    http.timeout = request.timeout.count() < 0 ? std::chrono::milliseconds(0) : request.timeout;
    http.on_data = on_data;
    FED_API_TRY(authorize(http));
    auto result = perform(http);
    if (!result) {
      ApiError err = std::move(result).error();
      if (err.transport_failure() != TransportFailure::Connect) err.add_context(what);
      return err;
    }
    if (is_success(result->status)) return {};
    if (result->status == 401 && config_.credentials && !reauthenticated) {
      reauthenticated = true;
      config_.credentials->invalidate();
      continue;
    }
    ApiError err = ApiError::from_response(result->status, result->body);
    if (const auto ra = parse_retry_after(result->retry_after)) err.set_retry_after(*ra);
    return std::move(err.add_context(what));
  }
}

}  // namespace fed::kube

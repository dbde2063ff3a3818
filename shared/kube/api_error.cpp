#include "shared/kube/api_error.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace fed::kube {
namespace {

std::string string_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

// A body that is not a Status (an HTML error page from a proxy, plain text) is shown as one
// short line so the error stays a single readable line.
std::string summarise_body(std::string_view body) {
  constexpr size_t kMax = 200;
  std::string out;
  for (char c : body.substr(0, kMax)) {
    out.push_back((c == '\n' || c == '\r' || c == '\t') ? ' ' : c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (body.size() > kMax) out += "...";
  return out;
}

}  // namespace

std::string_view reason_for_status(int http_status) {
  switch (http_status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 501:
      return "NotImplemented";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return http_status >= 500 ? "InternalError" : "Unknown";
  }
}

ErrorCode error_code_for_status(int http_status, std::string_view reason) {
  if (reason == "Timeout" || reason == "ServerTimeout" || reason == "TooManyRequests") {
    return ErrorCode::Unavailable;
  }
  switch (http_status) {
    case 0:
      return ErrorCode::Unavailable;  // no response: network trouble
    case 401:
    case 403:
      return ErrorCode::Permission;
    case 404:
      return ErrorCode::NotFound;
    case 409:
    case 410:  // Gone/Expired: re-read (relist) and retry; ApiError::is_gone() tells it apart
    case 412:
      return ErrorCode::Conflict;
    case 408:
    case 429:
      return ErrorCode::Unavailable;
    case 501:
      return ErrorCode::Invalid;  // the server will never implement it on retry
    default:
      break;
  }
  if (http_status >= 500 && http_status < 600) return ErrorCode::Unavailable;
  if (http_status >= 400 && http_status < 500) return ErrorCode::Invalid;
  return ErrorCode::Internal;
}

ApiError::ApiError(ErrorCode code, int http_status, std::string reason, std::string message)
    : code_(code),
      http_status_(http_status),
      reason_(std::move(reason)),
      message_(std::move(message)) {}

ApiError ApiError::from_status(const nlohmann::json& status, int fallback_http_status) {
  int http = fallback_http_status;
  if (status.is_object()) {
    auto c = status.find("code");
    if (c != status.end() && c->is_number_integer() && c->get<int>() > 0) http = c->get<int>();
  }
  std::string reason = string_field(status, "reason");
  if (reason.empty()) reason = std::string(reason_for_status(http));
  std::string message = string_field(status, "message");
  if (message.empty()) message = "the server reported " + reason + " without details";
  ApiError e(error_code_for_status(http, reason), http, std::move(reason), std::move(message));
  if (status.is_object()) {
    auto d = status.find("details");
    if (d != status.end() && d->is_object()) {
      e.details_kind_ = string_field(*d, "kind");
      e.details_name_ = string_field(*d, "name");
      e.details_group_ = string_field(*d, "group");
      auto ra = d->find("retryAfterSeconds");
      if (ra != d->end() && ra->is_number_integer() && ra->get<long>() > 0) {
        e.retry_after_ = std::chrono::seconds(ra->get<long>());
      }
      auto causes = d->find("causes");
      if (causes != d->end() && causes->is_array()) {
        for (const auto& c : *causes) {
          e.causes_.push_back(StatusCause{string_field(c, "reason"), string_field(c, "message"),
                                          string_field(c, "field")});
        }
      }
    }
  }
  return e;
}

ApiError ApiError::from_response(int http_status, std::string_view body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && string_field(j, "kind") == "Status") return from_status(j, http_status);
  std::string reason(reason_for_status(http_status));
  std::string summary = summarise_body(body);
  std::string message = "the server responded with HTTP " + std::to_string(http_status);
  if (!summary.empty()) message += ": " + summary;
  return ApiError(error_code_for_status(http_status, reason), http_status, std::move(reason),
                  std::move(message));
}

ApiError ApiError::transport(TransportFailure failure, std::string message) {
  ApiError e(ErrorCode::Unavailable, 0, "", std::move(message));
  e.transport_ = failure;
  return e;
}

ApiError ApiError::from_error(const Error& error) {
  return ApiError(error.code(), 0, "", error.message());
}

bool ApiError::is_gone() const {
  return http_status_ == 410 || reason_ == "Gone" || reason_ == "Expired";
}

bool ApiError::is_apply_conflict() const {
  if (http_status_ != 409) return false;
  return std::any_of(causes_.begin(), causes_.end(),
                     [](const StatusCause& c) { return c.reason == "FieldManagerConflict"; });
}

std::vector<std::string> ApiError::conflicting_managers() const {
  // The server writes each cause as: conflict with "<manager>"[ with subresource "x"] using v1
  std::vector<std::string> out;
  constexpr std::string_view kPrefix = "conflict with \"";
  for (const auto& c : causes_) {
    if (c.reason != "FieldManagerConflict") continue;
    const auto start = c.message.find(kPrefix);
    if (start == std::string::npos) continue;
    const auto from = start + kPrefix.size();
    const auto end = c.message.find('"', from);
    if (end == std::string::npos) continue;
    std::string name = c.message.substr(from, end - from);
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

ApiError& ApiError::add_context(std::string_view context) {
  if (context.empty()) return *this;
  context_ = context_.empty() ? std::string(context) : std::string(context) + ": " + context_;
  return *this;
}

Error ApiError::to_error() const {
  std::string msg = context_.empty() ? message_ : context_ + ": " + message_;
  if (http_status_ != 0) {
    msg += " (HTTP " + std::to_string(http_status_);
    if (!reason_.empty()) msg += " " + reason_;
    msg += ")";
  }
  if (is_apply_conflict()) {
    std::string names;
    for (const auto& m : conflicting_managers()) names += (names.empty() ? "" : ", ") + m;
    msg += "; fields are owned by " + names + "; apply with force to take them over";
  }
  return Error(code_, std::move(msg));
}

}  // namespace fed::kube

#pragma once
// ApiError: a failed Kubernetes API call as the server (or the network) reported it — HTTP code,
// Status reason, message and causes — plus the fed::ErrorCode a caller or work queue acts on.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "shared/result/result.hpp"

namespace fed::kube {

// One entry of Status.details.causes.
struct StatusCause {
  std::string reason;  // e.g. FieldValueInvalid, FieldManagerConflict
  std::string message;
  std::string field;
};

// How the request failed before an HTTP status was obtained (http_status() == 0).
enum class TransportFailure {
  None,         // the server answered; see http_status()
  Connect,      // DNS, TCP connect or proxy failure: nothing was sent
  Tls,          // handshake or certificate verification failed
  Timeout,      // the request timeout elapsed
  Interrupted,  // the connection broke mid-request
  Cancelled,    // the caller's stop token fired
  Other,
};

class ApiError final {
 public:
  ApiError(ErrorCode code, int http_status, std::string reason, std::string message);

  // Builds the error for a non-2xx response. A Kubernetes Status body supplies reason, message
  // and details; any other body (a proxy's HTML page) is summarised and the reason is derived
  // from the HTTP code.
  static ApiError from_response(int http_status, std::string_view body);
  // Builds the error from a parsed Status object (also used for watch ERROR events).
  static ApiError from_status(const nlohmann::json& status, int fallback_http_status);
  // A failure with no HTTP response; `message` is already the complete one-line explanation.
  static ApiError transport(TransportFailure failure, std::string message);
  // Wraps a client-side failure (bad input, discovery miss) that never reached the server.
  static ApiError from_error(const Error& error);

  // The classification a caller acts on: 404 NotFound, 409 Conflict, 401/403 Permission,
  // 400/422 Invalid, 410 Conflict (see is_gone), 429/5xx/network Unavailable.
  ErrorCode code() const { return code_; }
  // The HTTP status, or 0 when no response was received.
  int http_status() const { return http_status_; }
  // Status.reason (NotFound, AlreadyExists, Conflict, Invalid, Expired, Gone, ...), possibly empty.
  const std::string& reason() const { return reason_; }
  // The server's message, or the transport's explanation.
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  // Status.details: the object kind/name/group the error is about, when the server says.
  const std::string& details_kind() const { return details_kind_; }
  const std::string& details_name() const { return details_name_; }
  const std::string& details_group() const { return details_group_; }
  TransportFailure transport_failure() const { return transport_; }
  // Status.details.retryAfterSeconds, or the Retry-After header when the client sets it.
  std::optional<std::chrono::seconds> retry_after() const { return retry_after_; }
  void set_retry_after(std::chrono::seconds s) { retry_after_ = s; }

  bool is_not_found() const { return http_status_ == 404; }
  bool is_already_exists() const { return reason_ == "AlreadyExists"; }
  // 409 of any kind: resourceVersion conflicts, apply conflicts, AlreadyExists.
  bool is_conflict() const { return http_status_ == 409; }
  // 410 Gone / Expired ("too old resource version"): the caller must relist.
  bool is_gone() const;
  // A server-side apply conflict: a 409 whose causes are FieldManagerConflict.
  bool is_apply_conflict() const;
  // The field managers named by an apply conflict, each once, in order of appearance.
  std::vector<std::string> conflicting_managers() const;

  // Prefixes the message with what was being done ("GET /api/v1/..."); returns *this.
  ApiError& add_context(std::string_view context);

  // The fed::Error: code() and a one-line message "<context>: <message> (<http> <reason>)".
  Error to_error() const;
  operator Error() const { return to_error(); }  // NOLINT: lets FED_TRY propagate ApiErrors

 private:
  ErrorCode code_;
  int http_status_;
  std::string reason_;
  std::string message_;
  std::string context_;
  std::vector<StatusCause> causes_;
  std::string details_kind_, details_name_, details_group_;
  TransportFailure transport_ = TransportFailure::None;
  std::optional<std::chrono::seconds> retry_after_;
};

// Maps an HTTP status (and Status reason) to the fed::ErrorCode policy described above.
ErrorCode error_code_for_status(int http_status, std::string_view reason);

// The canonical Status reason for an HTTP code when the body did not carry one.
std::string_view reason_for_status(int http_status);

}  // namespace fed::kube

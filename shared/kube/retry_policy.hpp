#pragma once
// When and how long to wait before retrying a Kubernetes API request: exponential backoff with
// full jitter, Retry-After parsing, and which failures are safe to retry for which verbs.
// Pure functions plus a small stateful Backoff; no I/O.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string_view>

#include "shared/kube/api_error.hpp"

namespace fed::kube {

struct BackoffPolicy {
  std::chrono::milliseconds initial{200};  // ceiling of the first wait
  std::chrono::milliseconds max{30'000};   // no wait is longer than this
  double multiplier = 2.0;
};

// The upper bound of the wait before retry number `attempt` (0-based):
// min(max, initial * multiplier^attempt).
std::chrono::milliseconds backoff_ceiling(const BackoffPolicy& policy, int attempt);

// "Full jitter" (AWS architecture blog): a uniform draw in [0, ceiling]. `unit` is a uniform
// number in [0, 1), injected so tests can pin the draw.
std::chrono::milliseconds full_jitter(std::chrono::milliseconds ceiling, double unit);

// Successive waits for one retry sequence; reset() after a success. Not thread-safe: one per
// request loop or watch loop.
class Backoff final {
 public:
  explicit Backoff(BackoffPolicy policy = {}, std::uint64_t seed = std::random_device{}());
  // The jittered wait before the next attempt; advances the attempt counter.
  std::chrono::milliseconds next();
  void reset() { attempt_ = 0; }
  int attempt() const { return attempt_; }

 private:
  BackoffPolicy policy_;
  int attempt_ = 0;
  std::mt19937_64 rng_;
};

// Parses a Retry-After header value in seconds ("3"). HTTP-dates and garbage give nullopt
// (the caller then uses its own backoff); negative values are rejected, large ones kept.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

// Whether retrying the same request can reasonably produce a different result.
enum class Idempotency { Idempotent, NonIdempotent };

// Whether an HTTP status is worth retrying: 429 and 5xx except 501 Not Implemented. A
// non-idempotent request (POST) retries a 5xx only when the server sent Retry-After,
// because a plain 500 may come after the object was created.
bool is_retryable_status(int http_status, Idempotency idempotency, bool has_retry_after);

// Whether a request that failed without a response may be retried: connection failures (nothing
// was sent) always; broken connections and timeouts only for idempotent requests; TLS
// verification failures and cancellation never.
bool is_retryable_transport(TransportFailure failure, Idempotency idempotency);

// Whether a refusal is a ValidatingAdmissionPolicy whose paramKind the API server cannot resolve
// yet: for up to 30 s after it starts, kube-apiserver's admission maps kinds from a discovery
// cache reset every 30 s, so a policy whose parameter is a custom resource fails closed
// ("failed to configure policy: failed to find resource referenced by paramKind") although
// the CRD is there. Rejected before anything is stored, so every verb may retry it.
bool is_unresolved_policy_param(int http_status, std::string_view message);

}  // namespace fed::kube

#include "shared/kube/retry_policy.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace fed::kube {

std::chrono::milliseconds backoff_ceiling(const BackoffPolicy& policy, int attempt) {
  const double max_ms = static_cast<double>(policy.max.count());
  double ms = static_cast<double>(policy.initial.count()) *
              std::pow(std::max(policy.multiplier, 1.0), std::max(attempt, 0));
  if (!std::isfinite(ms) || ms > max_ms) ms = max_ms;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::max(ms, 0.0)));
}

std::chrono::milliseconds full_jitter(std::chrono::milliseconds ceiling, double unit) {
  unit = std::clamp(unit, 0.0, 1.0);
  // Inclusive of the ceiling: a draw of [0, ceiling] in whole milliseconds.
  const auto span = static_cast<double>(ceiling.count() + 1);
  const auto ms = static_cast<std::int64_t>(std::floor(unit * span));
  return std::chrono::milliseconds(std::min<std::int64_t>(ms, ceiling.count()));
}

Backoff::Backoff(BackoffPolicy policy, std::uint64_t seed) : policy_(policy), rng_(seed) {}

std::chrono::milliseconds Backoff::next() {
  const auto ceiling = backoff_ceiling(policy_, attempt_);
  if (attempt_ < 64) ++attempt_;  // the ceiling saturates long before; avoid overflow
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  return full_jitter(ceiling, dist(rng_));
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) {
    value.remove_suffix(1);
  }
  if (value.empty()) return std::nullopt;
  long long seconds = 0;
  const auto* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, seconds);
  if (ec != std::errc() || ptr != end || seconds < 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

bool is_retryable_status(int http_status, Idempotency idempotency, bool has_retry_after) {
  if (http_status == 429) return true;  // rejected before any processing
  if (http_status < 500 || http_status > 599 || http_status == 501) return false;
  return idempotency == Idempotency::Idempotent || has_retry_after;
}

bool is_retryable_transport(TransportFailure failure, Idempotency idempotency) {
  switch (failure) {
    case TransportFailure::Connect:
      return true;
    case TransportFailure::Interrupted:
    case TransportFailure::Timeout:
    case TransportFailure::Other:
      return idempotency == Idempotency::Idempotent;
    case TransportFailure::Tls:
    case TransportFailure::Cancelled:
    case TransportFailure::None:
      return false;
  }
  return false;
}

bool is_unresolved_policy_param(int http_status, std::string_view message) {
  // A policy's configuration error is returned with the status of its validation's reason
  // (Invalid by default, Forbidden when the policy says so).
  if (http_status != 422 && http_status != 403) return false;
  return message.find(
             "failed to configure policy: failed to find resource referenced by "
             "paramKind") != std::string_view::npos;
}

}  // namespace fed::kube

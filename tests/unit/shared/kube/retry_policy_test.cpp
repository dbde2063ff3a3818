#include "shared/kube/retry_policy.hpp"

#include <doctest/doctest.h>

namespace fed::kube {

using std::chrono::milliseconds;

TEST_CASE("backoff ceilings grow exponentially and saturate") {
  BackoffPolicy p{milliseconds(100), milliseconds(5000), 2.0};
  CHECK(backoff_ceiling(p, 0) == milliseconds(100));
  CHECK(backoff_ceiling(p, 1) == milliseconds(200));
  CHECK(backoff_ceiling(p, 5) == milliseconds(3200));
  CHECK(backoff_ceiling(p, 6) == milliseconds(5000));
  CHECK(backoff_ceiling(p, 1000) == milliseconds(5000));
  CHECK(backoff_ceiling(p, -3) == milliseconds(100));
}

TEST_CASE("full jitter stays within [0, ceiling]") {
  CHECK(full_jitter(milliseconds(1000), 0.0) == milliseconds(0));
  CHECK(full_jitter(milliseconds(1000), 0.5) == milliseconds(500));
  CHECK(full_jitter(milliseconds(1000), 0.999999) == milliseconds(1000));
  CHECK(full_jitter(milliseconds(1000), 7.0) == milliseconds(1000));
  CHECK(full_jitter(milliseconds(0), 0.7) == milliseconds(0));

  Backoff b(BackoffPolicy{milliseconds(10), milliseconds(80), 2.0}, 42);
  bool saw_nonzero = false;
  for (int i = 0; i < 200; ++i) {
    const auto ceiling =
        backoff_ceiling(BackoffPolicy{milliseconds(10), milliseconds(80), 2.0}, std::min(i, 10));
    const auto d = b.next();
    CHECK(d >= milliseconds(0));
    CHECK(d <= ceiling);
    saw_nonzero = saw_nonzero || d > milliseconds(0);
  }
  CHECK(saw_nonzero);
  b.reset();
  CHECK(b.attempt() == 0);
  CHECK(b.next() <= milliseconds(10));
}

TEST_CASE("Retry-After in seconds") {
  CHECK(parse_retry_after("3") == std::chrono::seconds(3));
  CHECK(parse_retry_after(" 120 \r") == std::chrono::seconds(120));
  CHECK(parse_retry_after("0") == std::chrono::seconds(0));
  CHECK_FALSE(parse_retry_after(""));
  CHECK_FALSE(parse_retry_after("-1"));
  CHECK_FALSE(parse_retry_after("1.5"));
  CHECK_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
}

TEST_CASE("which statuses are retried for which verbs") {
  using I = Idempotency;
  CHECK(is_retryable_status(429, I::NonIdempotent, false));
  CHECK(is_retryable_status(503, I::Idempotent, false));
  CHECK(is_retryable_status(500, I::Idempotent, false));
  CHECK_FALSE(is_retryable_status(500, I::NonIdempotent, false));
  CHECK(is_retryable_status(503, I::NonIdempotent, true));
  CHECK_FALSE(is_retryable_status(501, I::Idempotent, true));
  CHECK_FALSE(is_retryable_status(404, I::Idempotent, false));
  CHECK_FALSE(is_retryable_status(409, I::Idempotent, false));
}

TEST_CASE("which transport failures are retried for which verbs") {
  using I = Idempotency;
  CHECK(is_retryable_transport(TransportFailure::Connect, I::NonIdempotent));
  CHECK(is_retryable_transport(TransportFailure::Interrupted, I::Idempotent));
  CHECK_FALSE(is_retryable_transport(TransportFailure::Interrupted, I::NonIdempotent));
  CHECK_FALSE(is_retryable_transport(TransportFailure::Timeout, I::NonIdempotent));
  CHECK_FALSE(is_retryable_transport(TransportFailure::Tls, I::Idempotent));
  CHECK_FALSE(is_retryable_transport(TransportFailure::Cancelled, I::Idempotent));
}

TEST_CASE("an admission policy whose parameter kind is not resolved yet is retried") {
  const std::string unresolved =
      "federationhosts.fed.kubectl-fed.io \"c2\" is forbidden: ValidatingAdmissionPolicy "
      "'p' denied request: failed to configure policy: failed to find resource referenced by "
      "paramKind: 'fed.kubectl-fed.io/v1alpha1, Kind=FederationLeader'";
  CHECK(is_unresolved_policy_param(422, unresolved));
  CHECK(is_unresolved_policy_param(403, unresolved));
  CHECK_FALSE(is_unresolved_policy_param(500, unresolved));
  // The policy's own verdict, and a binding's configuration error, are final.
  CHECK_FALSE(is_unresolved_policy_param(403,
                                         "ValidatingAdmissionPolicy 'p' denied request: "
                                         "this host cluster is a follower"));
  CHECK_FALSE(is_unresolved_policy_param(
      422, "failed to configure binding: cannot use namespaced paramRef in policy binding"));
}

}  // namespace fed::kube

#pragma once
// The offloading webhook's answer to the API server (spec 001 §2.4.5): an admission.k8s.io/v1
// AdmissionReview for a pod CREATE in, the AdmissionReview response out — allowed, with the
// JSON patch of pod_affinity.hpp when the pod's namespace is offloaded. Pure; the HTTPS server
// that carries it is separate.

#include <optional>

#include <nlohmann/json.hpp>

#include "shared/fedapi/offloading.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

// `offloading`: the spec of the pod's namespace's NamespaceOffloading, nullopt when the
// namespace is not offloaded (the pod is admitted unchanged). A pod whose own required node
// affinity is malformed or matches nothing once the strategy is applied is refused (allowed
// false, code 400, the field named). Invalid when `review` is not an AdmissionReview request
// for a Pod; the server answers that with HTTP 400.
Result<nlohmann::json> review_pod(const nlohmann::json& review,
                                  const std::optional<fedapi::NamespaceOffloadingSpec>& offloading);

}  // namespace fed::offload

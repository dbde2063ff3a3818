#pragma once
// The namespace cap of a consumer on a provider (spec 001 §3: a Tenant owner "may create only a
// limited number of namespaces"), as the tenancy webhook decides it: an AdmissionReview for a
// Namespace CREATE by the federation identity in, allowed or refused out. No native object can
// count cluster-scoped namespaces (a ResourceQuota counts inside one namespace, a CEL policy
// sees one object), hence a webhook. Pure; namespace_cap_webhook.hpp serves it.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/admission_review.hpp"
#include "shared/result/result.hpp"

namespace fed::tenancy {

struct NamespaceCreate {
  kube::AdmissionRequest request;
  std::string name;
  std::optional<std::string> consumer;  // kubectl-fed.io/origin-cluster, none: not a replica
};

// Invalid unless `review` is an AdmissionReview request to CREATE a Namespace.
Result<NamespaceCreate> parse_namespace_create(const nlohmann::json& review);

// The AdmissionReview answer: refused (403 Forbidden, naming the consumer, its count, the cap
// and the fix) when the request is a replica and `held` replicas of its consumer already exist
// with `namespace_quota` > 0 and `held` >= it; allowed otherwise (the federation's
// ValidatingAdmissionPolicy refuses a namespace that is not a replica).
nlohmann::json answer_namespace_create(const NamespaceCreate& request, int held,
                                       int namespace_quota);

}  // namespace fed::tenancy

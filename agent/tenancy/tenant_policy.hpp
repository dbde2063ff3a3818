#pragma once
// What a provider imposes on each consumer (spec 001 §3, the Capsule Tenant done natively):
// every replica namespace of a consumer — a namespace labelled kubectl-fed.io/origin-cluster,
// whose value names the consumer (the host cluster) — gets a ResourceQuota, a LimitRange and a
// NetworkPolicy the provider owns, and a consumer may hold at most `namespace_quota` replicas
// (namespace_admission.hpp). The consumer's identity has no right on these kinds, so it can
// neither lift nor loosen them. Pure: the objects as values.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::tenancy {

// The label that marks a replica and names its consumer (agent/manager/offload sets it).
inline constexpr std::string_view kConsumerLabel = "kubectl-fed.io/origin-cluster";
// The name of each object the provider keeps in a replica.
inline constexpr std::string_view kTenantObjectName = "kubectl-fed-tenant";

struct TenantPolicy {
  int namespace_quota = 20;  // replicas per consumer; 0 = no cap
  // ResourceQuota spec.hard per replica ("requests.cpu": "2", "pods": "110"); empty = none.
  std::map<std::string, std::string> quota;
  // LimitRange container defaults, so that a pod without requests is admitted under a quota
  // on requests.*: {"cpu": "50m", "memory": "64Mi"}; empty = no LimitRange.
  std::map<std::string, std::string> default_request;
  // The provider's own PodCIDR: ingress from it is allowed only from the same consumer's
  // replicas. Empty = no NetworkPolicy (isolation would be unknowable).
  std::string local_pod_cidr;
};

// "cpu=2,memory=4Gi" → {{"cpu","2"},{"memory","4Gi"}}; `flag` names it in the error. Each
// value must be a Kubernetes quantity.
Result<std::map<std::string, std::string>> parse_resource_list(std::string_view text,
                                                               std::string_view flag);

// The consumer of a replica namespace: its kConsumerLabel value, nullopt when it has none.
std::optional<std::string> consumer_of(const nlohmann::json& namespace_object);

// The provider's objects in replica `ns` of `consumer`; nullopt when the policy has none of
// that kind.
std::optional<nlohmann::json> resource_quota(const std::string& ns, const std::string& consumer,
                                             const TenantPolicy& policy);
std::optional<nlohmann::json> limit_range(const std::string& ns, const std::string& consumer,
                                          const TenantPolicy& policy);
// Ingress to every pod of the replica only from the replicas of the same consumer and from
// outside the provider's PodCIDR (the consumer's pods arrive through the gateway, translated
// into other ranges; nodes and kubelet probes come from node addresses).
std::optional<nlohmann::json> network_policy(const std::string& ns, const std::string& consumer,
                                             const TenantPolicy& policy);

}  // namespace fed::tenancy

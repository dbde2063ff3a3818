#pragma once
// Taking a node out of service, as `kubectl drain` does: cordon (spec.unschedulable), evict its
// pods through the Eviction API so PodDisruptionBudgets are respected, wait until they are gone
// (and, for a member's virtual node that `unjoin` empties, until the workloads they belonged to
// are ready again elsewhere), and uncordon afterwards. Used by `reconfigure` before a kubelet
// restarts and by `unjoin` before a member's data path goes.

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/pod_owner.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Whether drain evicts `pod`: not DaemonSet pods (the DaemonSet controller would put them
// back), not static/mirror pods, not finished pods, and not kubectl-fed's own agent pods.
bool evictable(const nlohmann::json& pod);

// Sets spec.unschedulable. Returns whether the node was schedulable before: only then does the
// rollout uncordon it again.
Result<bool> cordon(kube::DynamicClient& client, const std::string& node);
Status uncordon(kube::DynamicClient& client, const std::string& node);

// Whether `error` is the 403 an eviction gets in a namespace being deleted (cause
// NamespaceTerminating): the pod goes with its namespace, so drain waits instead of failing.
bool namespace_terminating(const kube::ApiError& error);

struct DrainResult {
  std::vector<std::string> evicted;  // "namespace/name"
  std::set<kube::PodOwner> owners;   // of the evicted pods
};

// The pods to evict: those listed in namespace `ns` ("" = all) with `field_selector`, for which
// `filter` (if set) is true; `what` names them in messages ("node n1").
struct PodScope {
  std::string what;
  std::string ns;
  std::string field_selector;
  std::function<bool(const nlohmann::json&)> filter;
};

// Evicts every evictable pod of `scope` and waits until they are gone, as drain() below does.
Result<DrainResult> evict_pods(kube::DynamicClient& client, const PodScope& scope,
                               std::chrono::steady_clock::time_point deadline);

// Evicts the pods of `scope` (evict_pods) and waits until their workloads are ready again
// (wait_owners_ready), both by `deadline`, saying so through `progress`. The report:
// {"evicted": ["ns/name", ...], "evictSeconds": s, "replacementsReadySeconds": s}.
Result<nlohmann::json> move_pods(kube::DynamicClient& client, const PodScope& scope,
                                 std::chrono::steady_clock::time_point deadline,
                                 const std::function<void(const std::string&)>& progress);

// Evicts every evictable pod of `node` and waits until they are gone. An eviction a
// PodDisruptionBudget refuses (429) is retried until `deadline`; Unavailable then names the pods
// and the budget that holds each (the API server's words).
Result<DrainResult> drain(kube::DynamicClient& client, const std::string& node,
                          std::chrono::steady_clock::time_point deadline);

// Waits until every ReplicaSet and StatefulSet of `owners` has as many ready replicas as it
// wants (or is gone); Unavailable at `deadline` names those that do not.
Status wait_owners_ready(kube::DynamicClient& client, const std::set<kube::PodOwner>& owners,
                         std::chrono::steady_clock::time_point deadline);

}  // namespace fed::plugin

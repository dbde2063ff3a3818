#pragma once
// Taking a node out of service before its kubelet restarts, as `kubectl drain` does: cordon
// (spec.unschedulable), evict its pods through the Eviction API so PodDisruptionBudgets are
// respected, wait until they are gone, and uncordon afterwards.

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
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

// Evicts every evictable pod of `node` and waits until they are gone. An eviction a
// PodDisruptionBudget refuses (429) is retried until `deadline`; Unavailable then names the pods.
Status drain(kube::DynamicClient& client, const std::string& node,
             std::chrono::steady_clock::time_point deadline);

}  // namespace fed::plugin

#pragma once
// Before a namespace stops being offloaded (`unoffload`), its pods come home while the members
// still serve them: the offloading's pod strategy becomes Local, so the pod webhook places new
// pods on the host's own nodes; the pods on virtual nodes are evicted (PodDisruptionBudgets
// respected) and the workloads they belonged to are waited for until ready again on the host.
// Only then are the replicas deleted. A host pod evicted leaves its Services' endpoints before
// its twin stops (the pod reflector's drain delay), so no request goes to a pod that is going.

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Moves the pods of `ns` off every virtual node, with `offloading` (the NamespaceOffloading)
// switched to podOffloadingStrategy Local first. The report: mode, evicted pods, seconds per
// phase. Unavailable (with the strategy put back) when a budget or the room on the host does
// not allow it within `timeout`.
Result<nlohmann::json> move_pods_home(kube::DynamicClient& host, const std::string& ns,
                                      const kube::ResourceRef& offloading,
                                      std::chrono::milliseconds timeout, Output& out);

}  // namespace fed::plugin

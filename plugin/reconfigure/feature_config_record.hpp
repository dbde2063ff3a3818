#pragma once
// A FeatureConfig run against the federation's members is recorded on the host, so that
// `kubectl get featureconfigs` shows what the federation should have and what each member
// got: the object as given (server-side applied, field manager kubectl-fed), its status
// Progressing while the members roll, then per member and node how the run ended.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/reconfigure/reconfigure_rollout.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The status of a finished run: phase Applied (every member succeeded), RolledBack (a node
// rolled back, none failed) or Failed; appliedClusters; per member its phase, message and
// nodes; the Applied condition (kept in `previous`'s conditions, lastTransitionTime moving
// only when its status changes). Pure.
nlohmann::json feature_config_status(const std::vector<ClusterResult>& results,
                                     std::int64_t generation, const nlohmann::json& previous,
                                     const std::string& now);

// Applies `feature_config` on the host and sets its status to Progressing over `members`.
// Returns the generation the host gave the spec.
Result<std::int64_t> record_start(kube::DynamicClient& host, const nlohmann::json& feature_config,
                                  const std::vector<std::string>& members);

// Writes the status of the finished run.
Status record_result(kube::DynamicClient& host, const std::string& name,
                     const std::vector<ClusterResult>& results, std::int64_t generation);

}  // namespace fed::plugin

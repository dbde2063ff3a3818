#pragma once
// What kubectl fed reconfigure prints: the rollout's per-cluster, per-node results and the
// status view, as JSON/YAML (-o) and as tables, and the exit status a script sees. Pure.

#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "plugin/reconfigure/reconfigure_plan.hpp"
#include "plugin/reconfigure/reconfigure_rollout.hpp"
#include "plugin/reconfigure/reconfigure_status.hpp"

namespace fed::plugin {

// {"kind": "ReconfigureResult", "desired": {...}, "succeeded": bool,
//  "clusters": [{"context", "succeeded", "error"?, "nodes": [{"name", "result", "phase",
//  "exitCode", "message", "seconds"}]}]}
nlohmann::json rollout_json(const ReconfigurePlan& plan, const std::vector<ClusterResult>& results);
Table rollout_table(const std::vector<ClusterResult>& results);

// {"kind": "ReconfigureStatus", "clusters": [{"context", "error"?, "nodes": [{"name", "phase",
//  "desired", "observed", "inSync", "message", "updated", "error"?}]}]}
nlohmann::json status_json(const std::vector<ClusterStatus>& clusters);
Table status_table(const std::vector<ClusterStatus>& clusters);

// ok() when every cluster applied; else the first cluster error (its exit code: 3 unreachable,
// 4 forbidden, 5 unknown context, ...), else Internal (exit 1) naming the nodes that did not
// apply.
Status rollout_status(const std::vector<ClusterResult>& results);

}  // namespace fed::plugin

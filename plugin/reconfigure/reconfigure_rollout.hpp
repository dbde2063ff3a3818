#pragma once
// One cluster's rollout of a reconfiguration: install the cluster features asked for
// (reconfigure_features.hpp), then, for kubelet fields, the agent's namespace and RBAC and
// node batches of --max-unavailable: cordon and drain when asked, start each node's agent Pod,
// wait for it, read how it ended, uncordon, next batch. A node that did not apply stops the
// cluster (later nodes untouched); the RBAC goes after success (--cleanup).

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/reconfigure/reconfigure_plan.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

enum class NodeOutcome {
  Applied,         // the agent changed the kubelet and the health gate passed
  AlreadyApplied,  // the kubelet already ran the values
  RolledBack,      // the new values failed; the old config runs again
  Failed,          // the agent failed otherwise (refused, rollback failed, timed out)
  Skipped,         // not started: an earlier node of the cluster did not apply
  Removed,         // a cluster feature was taken out (FEATURE=false)
};
std::string_view to_string(NodeOutcome outcome);

struct NodeResult {
  std::string node;
  NodeOutcome outcome = NodeOutcome::Skipped;
  std::string phase;   // kubectl-fed.io/reconfigure-phase after the run, if any
  int exit_code = -1;  // fed-agent's exit code; -1 when it did not end
  std::string message;
  double seconds = 0;  // from the node's cordon (or pod creation) to its end
};

// A cluster feature (reconfigure_features.hpp): Applied, AlreadyApplied or Failed; its
// removal: Removed, AlreadyApplied (nothing was installed) or Failed.
struct FeatureResult {
  std::string name;
  NodeOutcome outcome = NodeOutcome::Skipped;
  std::string message;
  double seconds = 0;
};

struct ClusterResult {
  std::string context;
  std::vector<NodeResult> nodes;
  std::vector<FeatureResult> features;
  std::optional<Error> error;  // the cluster could not be rolled out (unreachable, RBAC, ...)
  // Applied or AlreadyApplied on every node and feature, and no error.
  bool succeeded() const;
};

// Called with a one-line progress message ("node1: agent pod started").
using ProgressFn = std::function<void(const std::string&)>;

// Creates the namespace kubectl-fed-system when missing (never re-applied: the federation's
// install may own its labels).
Status ensure_reconfigure_namespace(kube::DynamicClient& client);

// Rolls `plan` out on the cluster behind `client`: its cluster features first (removals,
// then installs), then its kubelet fields node by node.
ClusterResult roll_out(kube::DynamicClient& client, const ReconfigurePlan& plan,
                       const std::string& context, const ProgressFn& progress);

// How a finished agent Pod ended: its exit code and log decide the outcome; `phase` and
// `annotation_message` are the Node's progress annotations read afterwards. Pure.
NodeResult node_result_from_pod(const std::string& node, const nlohmann::json& pod,
                                const std::string& log, const std::string& phase,
                                const std::string& annotation_message);

// Whether a node whose run Failed (`result`) still runs exactly what it ran before, so that
// the cordon the run put on it can go: its agent failed before writing the kubelet config
// (no progress recorded, or only Started). Not for a CNI switch, whose failed check leaves a
// node on the new network: it stays cordoned for a person to look at. Pure.
bool failed_untouched(const NodeResult& result, bool cni);

}  // namespace fed::plugin

#pragma once
// The node side of `kubectl fed reconfigure`: rewrite the kubelet's configuration, restart it,
// gate on its health, and roll back if the gate fails. Crash-safe by the order of its steps
// (docs/RECONFIGURE.md): the config file is only ever the old or the new one, the backup exists
// before the file changes, and progress on the Node's annotations lets a restarted agent finish
// or undo the change instead of starting over.

#include <chrono>
#include <filesystem>
#include <string>

#include "agent/node/reconfig/kubelet_restart.hpp"
#include "agent/node/reconfig/node_client.hpp"
#include "shared/reconfig/change_set.hpp"
#include "shared/result/result.hpp"

namespace fed::reconfig {

struct ReconfigureRequest {
  // The file rewritten: the kubelet's --config file, or kubectl-fed's drop-in in its --config-dir.
  std::filesystem::path config_file;
  // A drop-in may not exist yet: it then starts as an empty KubeletConfiguration.
  bool drop_in = false;
  std::filesystem::path root_dir = "/var/lib/kubelet";  // where the kubelet's checkpoints are
  // Where the paths above are reached from the agent: empty when they are the agent's own
  // (hostPath mounts), else the kubelet's root directory (handle_path of its mount namespace).
  std::filesystem::path node_root;
  ChangeSet changes;
  RestartSpec restart;
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};  // per health gate
  std::chrono::milliseconds poll_interval{std::chrono::seconds(1)};
};

enum class Outcome {
  Applied,         // the kubelet runs the new values
  AlreadyApplied,  // it already did; nothing was touched
  RolledBack,      // the new values failed the gate; the old config runs again
};

struct ReconfigureReport {
  Outcome outcome = Outcome::Applied;
  std::string message;  // for RolledBack: why
};

// `path` (one of the kubelet's) as the agent reaches it.
std::filesystem::path on_node(const ReconfigureRequest& request, const std::filesystem::path& path);

// "<config>.kubectl-fed-backup": the config as it was before the last change.
std::filesystem::path backup_path(const std::filesystem::path& config_file);

// Applies request.changes on the node `node` names. Errors: Invalid (the change would break the
// kubelet; nothing touched), Conflict (another change is unfinished), Unavailable (the kubelet
// was not healthy before the change), Internal (even the rollback failed; the message says
// what to repair).
Result<ReconfigureReport> reconfigure_node(NodeClient& node, const ReconfigureRequest& request);

}  // namespace fed::reconfig

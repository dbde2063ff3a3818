#pragma once
// kubectl fed reconfigure's input, checked before any cluster is touched: the --set items (or a
// FeatureConfig file) through the agent's own allow-list, the node paths and restart command,
// the batches nodes roll in. Pure: tests build plans without a parser or a cluster.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reconfig/change_set.hpp"
#include "result/result.hpp"

namespace fed::plugin {

// The flags as given (strings, so that the plan reports bad values itself).
struct ReconfigureOptions {
  std::string action;            // "" (apply) or "status"
  std::vector<std::string> set;  // --set field=value, repeatable
  std::string file;              // -f FeatureConfig YAML/JSON ("-" = stdin is not supported)
  int max_unavailable = 1;       // --max-unavailable: nodes changed at once per cluster
  bool drain = false;            // --drain: cordon and evict pods before a node's change
  std::string image = "fed.local/fed-agent:dev";  // --image: holds /usr/local/bin/fed-agent
  std::string kubelet_config;      // --kubelet-config PATH ({node} = the node's name)
  std::string kubelet_config_dir;  // --kubelet-config-dir DIR: a drop-in there instead
  std::string kubelet_root_dir;    // --kubelet-root-dir DIR
  std::string restart_command;     // --restart-command "PROGRAM ARG..." ({node})
  std::string timeout = "2m";      // --timeout: the agent's health gate after each restart
  std::string dry_run = "none";    // --dry-run: none or client
  bool cleanup = true;             // --cleanup: remove the agent's RBAC after success
};

// Where the node agent finds the kubelet's files, with "{node}" still in them.
struct NodeTarget {
  std::string kubelet_config;      // empty when kubelet_config_dir is set
  std::string kubelet_config_dir;  // a drop-in directory
  std::string root_dir;
  std::string restart_command;  // empty: the agent's default (systemd through nsenter)
};

enum class DrainMode { Off, On };
enum class Cleanup { Keep, Remove };

// Everything a rollout needs, validated.
struct ReconfigurePlan {
  reconfig::ChangeSet changes;
  std::vector<std::string> set_items;  // "field=value", passed to every node's agent
  int max_unavailable = 1;
  DrainMode drain = DrainMode::Off;
  std::string image;
  NodeTarget target;
  std::chrono::seconds gate_timeout{120};  // the agent's --timeout
  Cleanup cleanup = Cleanup::Remove;
  bool dry_run = false;  // --dry-run=client: print the objects, change nothing
};

// Checks the options. Invalid (exit 2) names the flag and the fix: an unknown field (with the
// allow-list's suggestion), a bad value, --set and -f together or neither, --max-unavailable
// below 1, a bad --timeout or --dry-run, a path that is not absolute. `file_text` is the text of
// -f (read by the caller), empty when -f was not given.
Result<ReconfigurePlan> make_plan(const ReconfigureOptions& options, std::string_view file_text);

// The --set items of a FeatureConfig (kind FeatureConfig, spec.kubelet: {field: value}; maps
// such as featureGates become featureGates.GATE=value). Invalid names what is wrong.
Result<std::vector<std::string>> set_items_from_feature_config(const nlohmann::json& doc);

// `nodes` sorted by name, in batches of at most `max_unavailable` (>= 1).
std::vector<std::vector<std::string>> plan_batches(std::vector<std::string> nodes,
                                                   int max_unavailable);

// `text` with every "{node}" replaced by `node`.
std::string for_node(std::string_view text, std::string_view node);

}  // namespace fed::plugin

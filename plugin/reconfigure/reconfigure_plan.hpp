#pragma once
// kubectl fed reconfigure's input, checked before any cluster is touched: the --set items (or a
// FeatureConfig file) through the agent's own allow-list, the node paths and restart command,
// the batches nodes roll in. Pure: tests build plans without a parser or a cluster.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/reconfig/change_set.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The flags as given (strings, so that the plan reports bad values itself).
struct ReconfigureOptions {
  std::string action;                  // "" (apply) or "status"
  std::vector<std::string> set;        // --set field=value, repeatable
  std::string file;                    // -f FeatureConfig YAML/JSON ("-" = stdin is not supported)
  int max_unavailable = 1;             // --max-unavailable: nodes changed at once per cluster
  bool max_unavailable_given = false;  // else the FeatureConfig's spec.maxUnavailable counts
  std::string clusters;                // --clusters SEL: members of the federation by label
  bool clusters_given = false;         // (then "" and "all" mean every member)
  bool drain = false;                  // --drain: cordon and evict pods before a node's change
  std::string image = "fed.local/fed-agent:dev";  // --image: holds /usr/local/bin/fed-agent
  bool webhook_caller_auth = false;               // --webhook-caller-auth: a feature's webhook
  std::string distribution;        // --distribution NAME: the kubelet layout of that vendor
  std::string kubelet_config;      // --kubelet-config PATH ({node} = the node's name)
  std::string kubelet_config_dir;  // --kubelet-config-dir DIR: a drop-in there instead
  std::string kubelet_root_dir;    // --kubelet-root-dir DIR
  std::string restart_command;     // --restart-command "PROGRAM ARG..." ({node})
  std::string timeout = "2m";      // --timeout: the agent's health gate after each restart
  std::string dry_run = "none";    // --dry-run: none or client
  bool cleanup = true;             // --cleanup: remove the agent's RBAC after success
  bool wait = true;                // --wait: always; --wait=false is refused
  std::string cni_conflist;        // --cni-conflist FILE: the network new pods get
  std::string cni_conf_dir;        // --cni-conf-dir DIR ({node}); default /etc/cni/net.d
  bool rollback = false;           // --rollback: remove the CNI switch's file again
};

// A CNI switch (reconfig/cni_conflist.hpp): install `conflist` on every node, or remove it.
struct CniSwitchPlan {
  std::string conflist;  // its JSON text ("{node}" replaced per node); empty for a rollback
  std::string network;   // its name
  std::vector<std::string> subnets;  // where a new pod's IP must come from; empty: not checked
  std::string conf_dir = "/etc/cni/net.d";  // "{node}" = the node's name
  bool rollback = false;
};

// Where the node agent finds the kubelet's files, with "{node}" still in them. All empty: the
// agent finds them from the node's running kubelet (discovers() is true).
struct NodeTarget {
  std::string kubelet_config;      // empty when kubelet_config_dir is set
  std::string kubelet_config_dir;  // a drop-in directory
  std::string root_dir;
  std::string restart_command;  // empty: the agent's default (systemd through nsenter)
  std::string distribution;     // passed to the agent (its kubelet unit, k3s' restart); or ""

  bool discovers() const {
    return kubelet_config.empty() && kubelet_config_dir.empty() && distribution.empty();
  }
};

enum class DrainMode { Off, On };
enum class Cleanup { Keep, Remove };

// Everything a rollout needs, validated.
struct ReconfigurePlan {
  std::vector<std::string> features;          // cluster features to install (podPreset), sorted
  std::vector<std::string> removed_features;  // cluster features to remove (podPreset=false)
  reconfig::ChangeSet changes;                // kubelet fields; empty when only features are asked
  std::optional<CniSwitchPlan> cni;           // a CNI switch instead of kubelet fields
  std::vector<std::string> set_items;         // "field=value", passed to every node's agent
  int max_unavailable = 1;
  DrainMode drain = DrainMode::Off;
  std::string image;
  bool webhook_caller_auth = false;
  NodeTarget target;
  std::chrono::seconds gate_timeout{120};     // the agent's --timeout
  std::chrono::seconds feature_timeout{120};  // a feature's wait until Ready: max(--timeout, 2m)
  Cleanup cleanup = Cleanup::Remove;
  bool dry_run = false;  // --dry-run=client: print the objects, change nothing
  // The federation's members to reconfigure, by their cluster labels (--clusters, or the
  // FeatureConfig's spec.clusterSelector), canonical; nullopt: the --context clusters.
  std::optional<std::string> cluster_selector;
  // The FeatureConfig of -f when it has a name: recorded on the federation's host with the
  // outcome in its status. Null otherwise.
  nlohmann::json feature_config;
};

// Checks the options. `--set NAME=true` (or FeatureConfig spec.NAME: true) of a cluster feature
// (reconfigure_features.hpp) asks for that feature, NAME=false for its removal; every other
// item is a kubelet field. The FeatureConfig's clusterSelector, maxUnavailable, drain and cni
// count where no flag says otherwise.
// Invalid (exit 2) names the flag and the fix: an unknown field (with the allow-list's
// suggestion), a feature set to anything but true or false, a bad value, a bad --clusters
// selector, --set and -f together or neither,
// --max-unavailable below 1, a bad --timeout or --dry-run, a path that is not absolute. `file_text`
// is the text of -f (read by the caller), empty when -f was not given.
// `conflist_text` is the text of --cni-conflist (read by the caller). A CNI switch (or its
// --rollback) runs alone: with --set, -f or a feature it is refused.
Result<ReconfigurePlan> make_plan(const ReconfigureOptions& options, std::string_view file_text,
                                  std::string_view conflist_text = "");

// `nodes` sorted by name, in batches of at most `max_unavailable` (>= 1).
std::vector<std::vector<std::string>> plan_batches(std::vector<std::string> nodes,
                                                   int max_unavailable);

// `text` with every "{node}" replaced by `node`.
std::string for_node(std::string_view text, std::string_view node);

}  // namespace fed::plugin

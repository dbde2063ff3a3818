#include "plugin/reconfigure/reconfigure_plan.hpp"

#include <algorithm>

#include "plugin/reconfigure/feature_config.hpp"
#include "plugin/reconfigure/reconfigure_features.hpp"
#include "shared/fedapi/manifest.hpp"
#include "shared/kube/label_selector.hpp"
#include "shared/reconfig/cni_conflist.hpp"
#include "shared/reconfig/kubelet_locations.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

Error invalid_plan(std::string message) {
  return Error(ErrorCode::Invalid, std::move(message));
}

struct SplitItems {
  std::vector<std::string> on, off;  // cluster features to install and to remove
  std::vector<std::string> fields;   // kubelet fields
};

// The items naming a cluster feature (which must say true or false), and the kubelet fields.
Result<SplitItems> split_features(std::vector<std::string> items) {
  SplitItems out;
  for (auto& item : items) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (!is_cluster_feature(key)) {
      out.fields.push_back(std::move(item));
      continue;
    }
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (value != "true" && value != "false") {
      return invalid_plan("--set " + item + ": expected " + key + "=true (install) or " + key +
                          "=false (remove)");
    }
    for (const auto* list : {&out.on, &out.off}) {
      if (std::find(list->begin(), list->end(), key) != list->end()) {
        return invalid_plan("--set " + key + " is given twice");
      }
    }
    (value == "true" ? out.on : out.off).push_back(key);
  }
  std::sort(out.on.begin(), out.on.end());
  std::sort(out.off.begin(), out.off.end());
  return out;
}

Status check_path(std::string_view flag, const std::string& path) {
  if (!path.empty() && path.front() != '/') {
    return invalid_plan(std::string(flag) + " " + path +
                        ": expected an absolute path on the node (\"{node}\" is the node's name)");
  }
  return ok();
}

// An error about a field as the user gave it: the checks speak of "--set FIELD", which for
// items of a -f file becomes "FILE: field FIELD".
Error from_file_or_flags(const ReconfigureOptions& o, Error error) {
  if (o.file.empty()) return error;
  std::string message = error.message();
  if (message.rfind("--set ", 0) == 0) message = "field " + message.substr(6);
  return Error(error.code(), o.file + ": " + message);
}

// The FeatureConfig of -f; an empty spec when -f was not given.
Result<FeatureConfigSpec> file_spec(const ReconfigureOptions& o, std::string_view text) {
  if (!o.set.empty() && !o.file.empty()) {
    return invalid_plan("--set and -f are exclusive: put every field in one of them");
  }
  if (o.file.empty()) return FeatureConfigSpec{};
  FED_ASSIGN_OR_RETURN(auto docs, fedapi::parse_manifests(text, o.file));
  if (docs.size() != 1) {
    return invalid_plan(o.file + ": expected one FeatureConfig document, found " +
                        std::to_string(docs.size()));
  }
  auto spec = read_feature_config(docs.front());
  if (!spec) return std::move(spec).error().with_context(o.file);
  return spec;
}

Result<CniSwitchPlan> cni_plan(const ReconfigureOptions& o, const FeatureConfigSpec& file,
                               std::string_view conflist_text) {
  const bool from_file = o.cni_conflist.empty() && !o.rollback;
  if (from_file ? !file.items.empty() : (!o.set.empty() || !o.file.empty())) {
    return invalid_plan(
        "a CNI switch runs alone: give --set or -f in a run of their own, before or after it" +
        std::string(from_file ? " (" + o.file + " has spec.cni and other fields)" : ""));
  }
  if (o.rollback && !o.cni_conflist.empty()) {
    return invalid_plan("--rollback removes the switch's file: give it without --cni-conflist");
  }
  CniSwitchPlan cni;
  cni.rollback = o.rollback;
  if (!o.cni_conf_dir.empty()) {
    cni.conf_dir = o.cni_conf_dir;
  } else if (!file.cni_conf_dir.empty()) {
    cni.conf_dir = file.cni_conf_dir;
  }
  FED_TRY(check_path("--cni-conf-dir", cni.conf_dir));
  if (cni.rollback) return cni;
  const std::string text(from_file ? std::string_view(file.cni_conflist) : conflist_text);
  const std::string where = from_file ? o.file + ": spec.cni.conflist" : o.cni_conflist;
  // Checked as each node gets it, "{node}" replaced.
  FED_ASSIGN_OR_RETURN(auto list, reconfig::parse_conflist(for_node(text, "node"), where));
  cni.conflist = text;
  cni.network = list.name;
  cni.subnets = list.subnets;
  return cni;
}

// --clusters, else the FeatureConfig's spec.clusterSelector, as a canonical selector.
Result<std::optional<std::string>> cluster_selector(const ReconfigureOptions& o,
                                                    const FeatureConfigSpec& file) {
  std::optional<std::string> text = file.cluster_selector;
  std::string where = o.file + ": spec.clusterSelector";
  if (o.clusters_given) {
    text = o.clusters;
    where = "--clusters";
  }
  if (!text) return std::optional<std::string>{};
  if (util::trim(*text) == "all") return std::optional<std::string>{""};
  auto selector = kube::LabelSelector::parse(*text);
  if (!selector) {
    return invalid_plan(where + " \"" + *text + "\": " + selector.error().message() +
                        "; expected a label selector over the members' cluster labels (region=eu, "
                        "tier in (a,b)) or all");
  }
  return std::optional<std::string>{selector->to_string()};
}

}  // namespace

Result<ReconfigurePlan> make_plan(const ReconfigureOptions& o, std::string_view file_text,
                                  std::string_view conflist_text) {
  ReconfigurePlan plan;
  if (!o.wait) {
    // The plugin drives the rollout node by node; nothing in the cluster would go on alone.
    return invalid_plan(
        "--wait=false: reconfigure drives the rollout itself and returns when it ends; run it "
        "in the background (or a CI job) instead, and follow it with `kubectl fed reconfigure "
        "status`");
  }
  FED_ASSIGN_OR_RETURN(const FeatureConfigSpec file, file_spec(o, file_text));
  if (!o.cni_conflist.empty() || o.rollback || !file.cni_conflist.empty()) {
    FED_ASSIGN_OR_RETURN(plan.cni, cni_plan(o, file, conflist_text));
  } else if (!o.cni_conf_dir.empty()) {
    return invalid_plan(
        "--cni-conf-dir belongs to a CNI switch: add --cni-conflist FILE or --rollback");
  }
  if (!plan.cni && o.set.empty() && o.file.empty()) {
    return invalid_plan(
        "nothing to change: give --set field=value (repeatable) or -f features.yaml");
  }
  auto split = split_features(plan.cni         ? std::vector<std::string>{}
                              : o.file.empty() ? o.set
                                               : file.items);
  if (!split) return from_file_or_flags(o, std::move(split).error());
  plan.features = std::move(split->on);
  plan.removed_features = std::move(split->off);
  plan.set_items = std::move(split->fields);
  if (!plan.set_items.empty()) {
    // The agent's own allow-list: an unknown field fails here with its suggestion.
    auto changes = reconfig::parse_set_args(plan.set_items);
    if (!changes) return from_file_or_flags(o, std::move(changes).error());
    plan.changes = std::move(*changes);
  }
  const bool from_file = !o.max_unavailable_given && file.max_unavailable;
  plan.max_unavailable = from_file ? *file.max_unavailable : o.max_unavailable;
  if (plan.max_unavailable < 1) {
    return invalid_plan((from_file ? o.file + ": spec.maxUnavailable " : "--max-unavailable ") +
                        std::to_string(plan.max_unavailable) +
                        ": expected at least 1 (nodes changed at once in each cluster)");
  }
  plan.drain = o.drain || file.drain.value_or(false) ? DrainMode::On : DrainMode::Off;
  FED_ASSIGN_OR_RETURN(plan.cluster_selector, cluster_selector(o, file));
  if (!file.name.empty()) plan.feature_config = file.document;
  if (o.image.empty()) return invalid_plan("--image: expected an image holding fed-agent");
  plan.image = o.image;
  plan.webhook_caller_auth = o.webhook_caller_auth;
  if (!o.kubelet_config.empty() && !o.kubelet_config_dir.empty()) {
    return invalid_plan("--kubelet-config and --kubelet-config-dir are exclusive");
  }
  FED_TRY(check_path("--kubelet-config", o.kubelet_config));
  FED_TRY(check_path("--kubelet-config-dir", o.kubelet_config_dir));
  FED_TRY(check_path("--kubelet-root-dir", o.kubelet_root_dir));
  plan.target.distribution = o.distribution;
  plan.target.kubelet_config = o.kubelet_config;
  plan.target.kubelet_config_dir = o.kubelet_config_dir;
  plan.target.root_dir = o.kubelet_root_dir;
  // Told nothing, the agent asks the node's running kubelet (its command line, its unit). Told a
  // distribution or a path, the paths are mounted into its pod: the distribution's (kubeadm's
  // when only a path is given) fill in what was not named.
  if (!plan.target.discovers()) {
    FED_ASSIGN_OR_RETURN(
        const reconfig::KubeletLayout* layout,
        reconfig::find_layout(o.distribution.empty() ? "kubeadm" : o.distribution));
    if (plan.target.kubelet_config.empty() && plan.target.kubelet_config_dir.empty()) {
      // A vendor file when there is one; a drop-in directory (k3s) otherwise.
      if (!layout->config_file.empty()) {
        plan.target.kubelet_config = layout->config_file;
      } else {
        plan.target.kubelet_config_dir = layout->config_dir;
      }
    }
    if (plan.target.root_dir.empty()) plan.target.root_dir = layout->root_dir;
  }
  plan.target.restart_command = std::string(util::trim(o.restart_command));
  FED_ASSIGN_OR_RETURN(const auto timeout, util::parse_positive_duration(o.timeout, "--timeout"));
  plan.gate_timeout =
      std::max(std::chrono::seconds(1), std::chrono::duration_cast<std::chrono::seconds>(timeout));
  // A feature waits for an image pull and a webhook's start, not for a kubelet restart.
  plan.feature_timeout = std::max(plan.gate_timeout, std::chrono::seconds(120));
  if (o.dry_run != "none" && o.dry_run != "client") {
    return invalid_plan("--dry-run " + o.dry_run +
                        ": expected none or client (server is not supported)");
  }
  plan.dry_run = o.dry_run == "client";
  plan.cleanup = o.cleanup ? Cleanup::Remove : Cleanup::Keep;
  return plan;
}

std::vector<std::vector<std::string>> plan_batches(std::vector<std::string> nodes,
                                                   int max_unavailable) {
  std::sort(nodes.begin(), nodes.end());
  const std::size_t size = static_cast<std::size_t>(std::max(1, max_unavailable));
  std::vector<std::vector<std::string>> batches;
  for (std::size_t i = 0; i < nodes.size(); i += size) {
    const std::size_t end = std::min(nodes.size(), i + size);
    batches.emplace_back(nodes.begin() + static_cast<std::ptrdiff_t>(i),
                         nodes.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return batches;
}

std::string for_node(std::string_view text, std::string_view node) {
  return util::replace_all(text, "{node}", node);
}

}  // namespace fed::plugin

#include "cmd/reconfigure_plan.hpp"

#include <algorithm>

#include "cmd/reconfigure_features.hpp"
#include "fedapi/manifest.hpp"
#include "reconfig/cni_conflist.hpp"
#include "util/duration.hpp"
#include "util/strings.hpp"

namespace fed::plugin {
namespace {

Error invalid(std::string message) {
  return Error(ErrorCode::Invalid, std::move(message));
}

// A FeatureConfig value as --set text: strings as they are, numbers and booleans as JSON.
Result<std::string> scalar_text(const std::string& key, const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean() || value.is_number()) return value.dump();
  return invalid("FeatureConfig spec." + key + ": expected a string, number or boolean, got " +
                 value.dump());
}

bool is_feature(std::string_view key) {
  const auto& known = cluster_features();
  return std::find(known.begin(), known.end(), key) != known.end();
}

std::string feature_list() {
  std::vector<std::string> names(cluster_features().begin(), cluster_features().end());
  return util::join(names, ", ");
}

// The items naming a cluster feature (which must say true), and the kubelet fields.
Result<std::pair<std::vector<std::string>, std::vector<std::string>>> split_features(
    std::vector<std::string> items) {
  std::vector<std::string> features, fields;
  for (auto& item : items) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (!is_feature(key)) {
      fields.push_back(std::move(item));
      continue;
    }
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (value == "false") {
      return invalid("--set " + item +
                     ": turning a feature off is not supported; remove it by hand with kubectl "
                     "delete -k manifests/features/" +
                     util::to_lower(key) + " (the PodPresets go with the CRD)");
    }
    if (value != "true") return invalid("--set " + item + ": expected " + key + "=true");
    if (std::find(features.begin(), features.end(), key) != features.end()) {
      return invalid("--set " + key + " is given twice");
    }
    features.push_back(key);
  }
  std::sort(features.begin(), features.end());
  return std::pair{std::move(features), std::move(fields)};
}

Status check_path(std::string_view flag, const std::string& path) {
  if (!path.empty() && path.front() != '/') {
    return invalid(std::string(flag) + " " + path +
                   ": expected an absolute path on the node (\"{node}\" is the node's name)");
  }
  return ok();
}

Result<std::vector<std::string>> items_of(const ReconfigureOptions& o, std::string_view text) {
  if (!o.set.empty() && !o.file.empty()) {
    return invalid("--set and -f are exclusive: put every field in one of them");
  }
  if (!o.set.empty()) return o.set;
  if (o.file.empty()) {
    return invalid("nothing to change: give --set field=value (repeatable) or -f features.yaml");
  }
  FED_ASSIGN_OR_RETURN(auto docs, fedapi::parse_manifests(text, o.file));
  if (docs.size() != 1) {
    return invalid(o.file + ": expected one FeatureConfig document, found " +
                   std::to_string(docs.size()));
  }
  auto items = set_items_from_feature_config(docs.front());
  if (!items) return std::move(items).error().with_context(o.file);
  return items;
}

}  // namespace

Result<std::vector<std::string>> set_items_from_feature_config(const nlohmann::json& doc) {
  if (doc.value("kind", "") != "FeatureConfig") {
    return invalid("expected kind FeatureConfig (apiVersion fed.kubectl-fed.io/v1alpha1), got \"" +
                   doc.value("kind", "") + "\"");
  }
  const auto spec = doc.value("spec", nlohmann::json::object());
  std::vector<std::string> items;
  for (const auto& [key, value] : spec.items()) {
    if (key == "kubelet") continue;
    if (!is_feature(key)) {
      return invalid("spec." + key + ": unknown feature; expected kubelet or one of " +
                     feature_list());
    }
    FED_ASSIGN_OR_RETURN(auto text, scalar_text(key, value));
    items.push_back(key + "=" + text);
  }
  const auto kubelet = spec.value("kubelet", nlohmann::json::object());
  if (!kubelet.is_object() || (kubelet.empty() && items.empty())) {
    return invalid(
        "spec.kubelet is empty: give the KubeletConfiguration fields to set, e.g. "
        "cpuManagerPolicy: static, or a feature (" +
        feature_list() + ": true)");
  }
  for (const auto& [field, value] : kubelet.items()) {
    if (value.is_object()) {  // featureGates, kubeReserved, evictionHard, ...
      for (const auto& [key, entry] : value.items()) {
        FED_ASSIGN_OR_RETURN(auto text, scalar_text("kubelet." + field + "." + key, entry));
        items.push_back(field + "." + key + "=" + text);
      }
      continue;
    }
    FED_ASSIGN_OR_RETURN(auto text, scalar_text("kubelet." + field, value));
    items.push_back(field + "=" + text);
  }
  return items;
}

namespace {

Result<CniSwitchPlan> cni_plan(const ReconfigureOptions& o, std::string_view conflist_text) {
  if (!o.set.empty() || !o.file.empty()) {
    return invalid(
        "a CNI switch runs alone: give --set or -f in a run of their own, before or after it");
  }
  if (o.rollback && !o.cni_conflist.empty()) {
    return invalid("--rollback removes the switch's file: give it without --cni-conflist");
  }
  CniSwitchPlan cni;
  cni.rollback = o.rollback;
  if (!o.cni_conf_dir.empty()) cni.conf_dir = o.cni_conf_dir;
  FED_TRY(check_path("--cni-conf-dir", cni.conf_dir));
  if (cni.rollback) return cni;
  // Checked as each node gets it, "{node}" replaced.
  FED_ASSIGN_OR_RETURN(auto list,
                       reconfig::parse_conflist(for_node(conflist_text, "node"), o.cni_conflist));
  cni.conflist = std::string(conflist_text);
  cni.network = list.name;
  cni.subnets = list.subnets;
  return cni;
}

}  // namespace

Result<ReconfigurePlan> make_plan(const ReconfigureOptions& o, std::string_view file_text,
                                  std::string_view conflist_text) {
  ReconfigurePlan plan;
  if (!o.cni_conflist.empty() || o.rollback) {
    FED_ASSIGN_OR_RETURN(plan.cni, cni_plan(o, conflist_text));
  } else if (!o.cni_conf_dir.empty()) {
    return invalid("--cni-conf-dir belongs to a CNI switch: add --cni-conflist FILE or --rollback");
  }
  auto items = plan.cni ? Result<std::vector<std::string>>(std::vector<std::string>{})
                        : items_of(o, file_text);
  if (!items) return std::move(items).error();
  auto split = split_features(std::move(*items));
  if (!split) {
    return o.file.empty() ? std::move(split).error()
                          : std::move(split).error().with_context(o.file);
  }
  plan.features = std::move(split->first);
  plan.set_items = std::move(split->second);
  if (!plan.set_items.empty()) {
    // The agent's own allow-list: an unknown field fails here with its suggestion.
    auto changes = reconfig::parse_set_args(plan.set_items);
    if (!changes) {
      return o.file.empty() ? std::move(changes).error()
                            : std::move(changes).error().with_context(o.file);
    }
    plan.changes = std::move(*changes);
  }
  if (o.max_unavailable < 1) {
    return invalid("--max-unavailable " + std::to_string(o.max_unavailable) +
                   ": expected at least 1 (nodes changed at once in each cluster)");
  }
  plan.max_unavailable = o.max_unavailable;
  plan.drain = o.drain ? DrainMode::On : DrainMode::Off;
  if (o.image.empty()) return invalid("--image: expected an image holding fed-agent");
  plan.image = o.image;
  if (!o.kubelet_config.empty() && !o.kubelet_config_dir.empty()) {
    return invalid("--kubelet-config and --kubelet-config-dir are exclusive");
  }
  FED_TRY(check_path("--kubelet-config", o.kubelet_config));
  FED_TRY(check_path("--kubelet-config-dir", o.kubelet_config_dir));
  FED_TRY(check_path("--kubelet-root-dir", o.kubelet_root_dir));
  // Inside the agent's pod only mounted paths exist, so the files are named, not detected:
  // kubeadm's layout unless told otherwise.
  plan.target.kubelet_config = o.kubelet_config;
  plan.target.kubelet_config_dir = o.kubelet_config_dir;
  if (o.kubelet_config.empty() && o.kubelet_config_dir.empty()) {
    plan.target.kubelet_config = "/var/lib/kubelet/config.yaml";
  }
  plan.target.root_dir = o.kubelet_root_dir.empty() ? "/var/lib/kubelet" : o.kubelet_root_dir;
  plan.target.restart_command = std::string(util::trim(o.restart_command));
  auto timeout = util::parse_duration(o.timeout);
  if (!timeout || timeout->count() <= 0) {
    return invalid("--timeout " + o.timeout + ": expected a positive duration such as 90s");
  }
  plan.gate_timeout =
      std::max(std::chrono::seconds(1), std::chrono::duration_cast<std::chrono::seconds>(*timeout));
  // A feature waits for an image pull and a webhook's start, not for a kubelet restart.
  plan.feature_timeout = std::max(plan.gate_timeout, std::chrono::seconds(120));
  if (o.dry_run != "none" && o.dry_run != "client") {
    return invalid("--dry-run " + o.dry_run +
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

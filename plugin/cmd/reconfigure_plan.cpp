#include "cmd/reconfigure_plan.hpp"

#include <algorithm>

#include "fedapi/manifest.hpp"
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
  return invalid("FeatureConfig spec.kubelet." + key +
                 ": expected a string, number or boolean, got " + value.dump());
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
  const auto kubelet = spec.value("kubelet", nlohmann::json::object());
  if (!kubelet.is_object() || kubelet.empty()) {
    return invalid(
        "spec.kubelet is empty: give the KubeletConfiguration fields to set, e.g. "
        "cpuManagerPolicy: static");
  }
  std::vector<std::string> items;
  for (const auto& [field, value] : kubelet.items()) {
    if (value.is_object()) {  // featureGates, kubeReserved, evictionHard, ...
      for (const auto& [key, entry] : value.items()) {
        FED_ASSIGN_OR_RETURN(auto text, scalar_text(field + "." + key, entry));
        items.push_back(field + "." + key + "=" + text);
      }
      continue;
    }
    FED_ASSIGN_OR_RETURN(auto text, scalar_text(field, value));
    items.push_back(field + "=" + text);
  }
  return items;
}

Result<ReconfigurePlan> make_plan(const ReconfigureOptions& o, std::string_view file_text) {
  ReconfigurePlan plan;
  FED_ASSIGN_OR_RETURN(plan.set_items, items_of(o, file_text));
  // The agent's own allow-list: an unknown field fails here with its suggestion.
  auto changes = reconfig::parse_set_args(plan.set_items);
  if (!changes) {
    return o.file.empty() ? std::move(changes).error()
                          : std::move(changes).error().with_context(o.file);
  }
  plan.changes = std::move(*changes);
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

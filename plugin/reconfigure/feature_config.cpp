#include "plugin/reconfigure/feature_config.hpp"

#include <algorithm>

#include "plugin/reconfigure/reconfigure_features.hpp"
#include "shared/util/json_text.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

Error invalid(std::string message) {
  return Error(ErrorCode::Invalid, std::move(message));
}

// The spec keys that are not features or kubelet fields.
const std::vector<std::string_view> kSettings = {"clusterSelector", "maxUnavailable", "drain",
                                                 "cni"};

std::string known_keys() {
  std::vector<std::string> names = {"kubelet"};
  for (auto f : cluster_features()) names.emplace_back(f);
  for (auto s : kSettings) names.emplace_back(s);
  return util::join(names, ", ");
}

// A value as --set text: strings as they are, numbers and booleans as JSON.
Result<std::string> scalar_text(const std::string& key, const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean() || value.is_number()) return util::json_text(value);
  return invalid("spec." + key + ": expected a string, number or boolean, got " +
                 util::json_text(value));
}

Status read_kubelet(const json& kubelet, std::vector<std::string>& items) {
  if (!kubelet.is_object()) return invalid("spec.kubelet: expected a map of fields");
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
  return ok();
}

Status read_cni(const json& cni, FeatureConfigSpec& out) {
  if (!cni.is_object()) return invalid("spec.cni: expected {conflist: {...}, confDir: DIR}");
  for (const auto& [key, value] : cni.items()) {
    if (key == "conflist") {
      // The list itself (a map), or its text.
      if (value.is_object()) {
        out.cni_conflist = value.dump(2);
      } else if (value.is_string()) {
        out.cni_conflist = value.get<std::string>();
      } else {
        return invalid("spec.cni.conflist: expected the CNI network list (a map)");
      }
    } else if (key == "confDir") {
      if (!value.is_string()) return invalid("spec.cni.confDir: expected a directory path");
      out.cni_conf_dir = value.get<std::string>();
    } else {
      return invalid("spec.cni." + key + ": unknown; expected conflist or confDir");
    }
  }
  if (out.cni_conflist.empty()) {
    return invalid("spec.cni.conflist: missing; give the CNI network list to install");
  }
  return ok();
}

Status read_setting(const std::string& key, const json& value, FeatureConfigSpec& out) {
  if (key == "clusterSelector") {
    if (!value.is_string()) {
      return invalid("spec.clusterSelector: expected a label selector string (region=eu)");
    }
    out.cluster_selector = value.get<std::string>();
  } else if (key == "maxUnavailable") {
    if (!value.is_number_integer()) return invalid("spec.maxUnavailable: expected an integer");
    out.max_unavailable = value.get<int>();
  } else if (key == "drain") {
    if (!value.is_boolean()) return invalid("spec.drain: expected true or false");
    out.drain = value.get<bool>();
  } else {
    return read_cni(value, out);
  }
  return ok();
}

}  // namespace

Result<FeatureConfigSpec> read_feature_config(const json& doc) {
  // Any YAML document comes here (-f FILE): a scalar, a list, or fields of the wrong type must
  // be refused by name, never reach json's type errors.
  if (!doc.is_object()) {
    return invalid("expected a FeatureConfig document (a map), got a " +
                   std::string(doc.type_name()));
  }
  const auto kind = doc.find("kind");
  if (kind == doc.end() || !kind->is_string() || *kind != "FeatureConfig") {
    return invalid("expected kind FeatureConfig (apiVersion fed.kubectl-fed.io/v1alpha1), got " +
                   (kind == doc.end() ? std::string("none") : util::json_text(*kind)));
  }
  FeatureConfigSpec out;
  out.document = doc;
  const auto metadata = doc.find("metadata");
  if (metadata != doc.end() && metadata->is_object()) {
    const auto name = metadata->find("name");
    if (name != metadata->end() && !name->is_string()) {
      return invalid("metadata.name: expected a string, got " + util::json_text(*name));
    }
    if (name != metadata->end()) out.name = name->get<std::string>();
  } else if (metadata != doc.end() && !metadata->is_null()) {
    return invalid("metadata: expected a map");
  }
  const json spec = doc.value("spec", json::object());
  if (!spec.is_object()) return invalid("spec: expected a map");
  std::vector<std::string> features;
  for (const auto& [key, value] : spec.items()) {
    if (key == "kubelet") {
      FED_TRY(read_kubelet(value, out.items));
    } else if (std::find(kSettings.begin(), kSettings.end(), key) != kSettings.end()) {
      FED_TRY(read_setting(key, value, out));
    } else if (is_cluster_feature(key)) {
      if (!value.is_boolean()) return invalid("spec." + key + ": expected true or false");
      features.push_back(key + "=" + util::json_text(value));
    } else {
      return invalid("spec." + key + ": unknown; expected one of " + known_keys());
    }
  }
  for (auto& f : features) out.items.push_back(std::move(f));
  if (out.items.empty() && out.cni_conflist.empty()) {
    return invalid(
        "spec: nothing to change; give spec.kubelet fields (cpuManagerPolicy: static), a "
        "feature (podPreset: true) or spec.cni");
  }
  return out;
}

}  // namespace fed::plugin

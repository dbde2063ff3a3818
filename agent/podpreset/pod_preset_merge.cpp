#include "agent/podpreset/pod_preset_merge.hpp"

#include <algorithm>
#include <map>

#include "shared/kube/admission_review.hpp"
#include "shared/kube/label_selector.hpp"
#include "shared/util/base64.hpp"

namespace fed::podpreset {
namespace {

using nlohmann::json;

std::string name_of(const json& object) {
  return object.value("metadata", json::object()).value("name", "");
}

std::string preset_label(const json& preset) {
  return "PodPreset " + name_of(preset);
}

// RFC 6901: "~" and "/" inside one reference token.
std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

json array_at(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_array()) return json::array();
  return object[key];
}

// Appends the entries of `add` (a preset's list) to `merged`, keyed by their "name": an entry
// already there with the same definition is skipped, another definition is a conflict. Entries
// `merged` already held come from the pod, so a preset never overrides the pod.
Status merge_named(json& merged, const json& add, std::string_view what, const std::string& where) {
  for (const auto& entry : add) {
    const std::string name = entry.value("name", "");
    auto same = std::find_if(merged.begin(), merged.end(), [&](const json& existing) {
      return existing.value("name", "") == name;
    });
    if (same == merged.end()) {
      merged.push_back(entry);
      continue;
    }
    if (*same != entry) {
      return Error(ErrorCode::Invalid,
                   std::string(what) + " " + name + " of " + where + " is defined differently");
    }
  }
  return ok();
}

// As merge_named, and a mount path taken by another mount is a conflict too.
Status merge_mounts(json& merged, const json& add, const std::string& where) {
  for (const auto& mount : add) {
    const std::string path = mount.value("mountPath", "");
    for (const auto& existing : merged) {
      if (existing.value("mountPath", "") == path && existing != mount) {
        return Error(ErrorCode::Invalid, "mount path " + path + " of " + where +
                                             " is taken by volume " + existing.value("name", ""));
      }
    }
  }
  return merge_named(merged, add, "volumeMount", where);
}

Status merge_container(json& container, const std::vector<json>& presets) {
  const std::string where = "container " + container.value("name", "");
  json env = array_at(container, "env");
  json env_from = array_at(container, "envFrom");
  json mounts = array_at(container, "volumeMounts");
  for (const auto& preset : presets) {
    const json spec = preset.value("spec", json::object());
    auto merged = merge_named(env, array_at(spec, "env"), "env", where);
    if (merged) merged = merge_mounts(mounts, array_at(spec, "volumeMounts"), where);
    if (!merged) return std::move(merged).error().with_context(preset_label(preset));
    for (const auto& source : array_at(spec, "envFrom")) env_from.push_back(source);
  }
  if (!env.empty()) container["env"] = std::move(env);
  if (!env_from.empty()) container["envFrom"] = std::move(env_from);
  if (!mounts.empty()) container["volumeMounts"] = std::move(mounts);
  return ok();
}

bool annotated(const json& pod, std::string_view key, std::string_view value) {
  const json annotations =
      pod.value("metadata", json::object()).value("annotations", json::object());
  auto it = annotations.find(std::string(key));
  return it != annotations.end() && it->is_string() && it->get<std::string>() == value;
}

bool is_mirror(const json& pod) {
  return pod.value("metadata", json::object())
      .value("annotations", json::object())
      .contains("kubernetes.io/config.mirror");
}

}  // namespace

std::vector<json> matching_presets(const json& pod, const std::vector<json>& presets) {
  const json labels = pod.value("metadata", json::object()).value("labels", json::object());
  std::vector<json> out;
  for (const auto& preset : presets) {
    const json spec = preset.value("spec", json::object());
    auto selector = kube::LabelSelector::from_json(spec.value("selector", json::object()));
    if (selector && selector->matches_json(labels)) out.push_back(preset);
  }
  std::sort(out.begin(), out.end(),
            [](const json& a, const json& b) { return name_of(a) < name_of(b); });
  return out;
}

Injection inject(const json& pod, const std::vector<json>& matching) {
  Injection injection;
  if (matching.empty()) return injection;
  json spec = pod.value("spec", json::object());
  json volumes = array_at(spec, "volumes");
  for (const auto& preset : matching) {
    auto merged = merge_named(volumes, array_at(preset.value("spec", json::object()), "volumes"),
                              "volume", "the pod");
    if (!merged) {
      injection.conflict = merged.error().with_context(preset_label(preset)).message();
      return injection;
    }
  }
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    json containers = spec[list];
    for (auto& container : containers) {
      if (auto merged = merge_container(container, matching); !merged) {
        injection.conflict = merged.error().message();
        return injection;
      }
    }
    if (containers != spec[list]) {
      injection.patch.push_back(
          {{"op", "replace"}, {"path", std::string("/spec/") + list}, {"value", containers}});
    }
  }
  if (volumes != array_at(spec, "volumes")) {
    injection.patch.push_back({{"op", "add"}, {"path", "/spec/volumes"}, {"value", volumes}});
  }
  const json meta = pod.value("metadata", json::object());
  const bool has_annotations = meta.contains("annotations") && meta["annotations"].is_object();
  json added = json::object();
  for (const auto& preset : matching) {
    const std::string version =
        preset.value("metadata", json::object()).value("resourceVersion", "");
    added[std::string(kAppliedAnnotationPrefix) + name_of(preset)] = version;
    injection.applied.push_back(name_of(preset));
  }
  if (!has_annotations) {
    injection.patch.push_back({{"op", "add"}, {"path", "/metadata/annotations"}, {"value", added}});
  } else {
    for (const auto& [key, value] : added.items()) {
      injection.patch.push_back({{"op", "add"},
                                 {"path", "/metadata/annotations/" + pointer_token(key)},
                                 {"value", value}});
    }
  }
  return injection;
}

Result<json> review_pod(const json& review, const std::vector<json>& namespace_presets) {
  FED_ASSIGN_OR_RETURN(const auto request, kube::parse_admission_request(review, "Pod"));
  if (request.operation != "CREATE" || !request.sub_resource.empty() ||
      annotated(request.object, kExcludeAnnotation, "true") || is_mirror(request.object)) {
    return kube::admission_allowed(request);
  }
  const Injection injection =
      inject(request.object, matching_presets(request.object, namespace_presets));
  json body{{"allowed", true}};
  if (!injection.conflict.empty()) {
    body["warnings"] = json::array({"no PodPreset applied: " + injection.conflict});
  } else if (!injection.patch.empty()) {
    body["patchType"] = "JSONPatch";
    body["patch"] = util::base64_encode(injection.patch.dump());
  }
  return kube::admission_answer(request, std::move(body));
}

}  // namespace fed::podpreset

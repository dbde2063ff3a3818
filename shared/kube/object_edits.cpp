#include "shared/kube/object_edits.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "shared/fedapi/condition.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::kube {

using nlohmann::json;

bool has_finalizer(const json& object, std::string_view finalizer) {
  const json list = object["metadata"].value("finalizers", json::array());
  return std::find(list.begin(), list.end(), std::string(finalizer)) != list.end();
}

Status set_finalizer(DynamicClient& client, const ResourceRef& ref, const json& object,
                     std::string_view finalizer, bool present) {
  json list = json::array();
  for (const auto& f : object["metadata"].value("finalizers", json::array())) {
    if (f != finalizer) list.push_back(f);
  }
  if (present) list.push_back(finalizer);
  json patch{{"metadata",
              {{"resourceVersion", object["metadata"].value("resourceVersion", "")},
               {"finalizers", list}}}};
  auto r = client.patch(ref, kube::PatchType::Merge, patch.dump());
  if (!r && !r.error().is_not_found()) return r.error().to_error();
  return ok();
}

Status patch_ready_status(DynamicClient& client, const ResourceRef& ref, const json& object,
                          json fields, bool ready, const std::string& reason,
                          const std::string& message) {
  const auto generation = object["metadata"].value("generation", std::int64_t{0});
  const json current = object.value("status", json::object());
  auto conditions = fedapi::read_conditions(current);
  fedapi::set_condition(conditions,
                        {"Ready", ready ? "True" : "False", reason, message, "", generation},
                        util::format_rfc3339(std::chrono::system_clock::now()));
  json status = std::move(fields);
  status["observedGeneration"] = generation;
  fedapi::write_conditions(status, conditions);
  json merged = current;
  merged.merge_patch(status);
  if (merged == current) return ok();
  auto r = client.patch_status(ref, kube::PatchType::Merge, json{{"status", status}}.dump());
  if (!r && !r.error().is_not_found()) return r.error().to_error();
  return ok();
}

ApiResult<json> replace_status(DynamicClient& client, const ResourceRef& ref, const json& object,
                               const json& status) {
  json updated = object;
  updated["status"] = status;
  for (int attempt = 1;; ++attempt) {
    auto r = client.update_status(ref, updated);
    if (r || !r.error().is_conflict() || attempt == 3) return r;
    auto latest = client.get(ref);
    if (!latest) return latest;
    updated = std::move(*latest);
    updated["status"] = status;
  }
}

Status remove_if_present(DynamicClient& client, const ResourceRef& ref) {
  auto r = client.remove(ref);
  if (r || r.error().is_not_found()) return ok();
  return r.error().to_error();
}

Status remove_selected(DynamicClient& client, const ResourceRef& collection,
                       const std::string& label_selector) {
  ListOptions options;
  options.label_selector = label_selector;
  auto listed = client.list_all(collection, options);
  if (!listed) return listed.error().to_error();
  for (const auto& item : (*listed).value("items", nlohmann::json::array())) {
    FED_TRY(remove_if_present(client, collection.named(item["metadata"].value("name", ""))));
  }
  return ok();
}

}  // namespace fed::kube

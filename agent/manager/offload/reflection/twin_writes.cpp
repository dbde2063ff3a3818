#include "agent/manager/offload/reflection/twin_writes.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"

namespace fed::offload {

using nlohmann::json;

bool ours(const json& object, const std::string& host_id) {
  const json labels = object["metadata"].value("labels", json::object());
  return labels.value(std::string(kOriginClusterLabel), "") == host_id;
}

Status ensure_twin(kube::DynamicClient& member, const json& desired, const std::string& host_id,
                   const std::string& what, std::span<const std::string_view> replaced) {
  auto existing = member.get_object(desired);
  if (!existing) {
    if (!existing.error().is_not_found()) return existing.error().to_error().with_context(what);
    auto created = member.create_object(desired);
    if (!created && !created.error().is_already_exists()) {
      return created.error().to_error().with_context("creating " + what);
    }
    spdlog::info("reflection: created {}", what);
    return ok();
  }
  if (!ours(*existing, host_id)) {
    spdlog::warn("reflection: {} exists and is not ours; left alone", what);
    return ok();
  }
  json updated = *existing;
  json patch = desired;
  patch.erase("apiVersion");
  patch.erase("kind");
  patch["metadata"] = {{"labels", desired["metadata"]["labels"]}};
  for (const auto field : replaced) patch.erase(std::string(field));
  updated.merge_patch(patch);  // arrays (ports, endpoints) are replaced whole
  for (const auto field : replaced) {
    const std::string key(field);
    if (desired.contains(key)) {
      updated[key] = desired[key];
    } else {
      updated.erase(key);
    }
  }
  if (updated == *existing) return ok();
  auto written = member.update_object(updated);
  if (!written) return written.error().to_error().with_context("updating " + what);
  spdlog::info("reflection: updated {}", what);
  return ok();
}

Result<bool> remove_twin(kube::DynamicClient& member, const kube::ResourceRef& ref,
                         const std::string& host_id) {
  auto existing = member.get(ref);
  if (!existing) {
    if (existing.error().is_not_found()) return false;
    return existing.error().to_error();
  }
  if (!ours(*existing, host_id)) return false;
  auto removed = member.remove(ref);
  if (!removed && !removed.error().is_not_found()) return removed.error().to_error();
  return true;
}

}  // namespace fed::offload

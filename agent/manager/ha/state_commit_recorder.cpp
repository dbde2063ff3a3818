#include "agent/manager/ha/state_commit_recorder.hpp"

#include <nlohmann/json.hpp>

#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/fedapi/state_commit.hpp"

namespace fed::ha {

using nlohmann::json;

StateCommitRecorder::StateCommitRecorder(std::shared_ptr<kube::DynamicClient> host)
    : host_(std::move(host)) {}

namespace {

std::string entry_of(const StateKey& key) {
  return fedapi::committed_key(key.kind, key.ns, key.name);
}

}  // namespace

Status StateCommitRecorder::load() {
  auto cm = host_->get(federation::configmap_ref(fedapi::kStateCommittedConfigMap));
  std::map<std::string, std::string> recorded;
  if (cm) {
    const json data = cm->value("data", json::object());
    for (auto it = data.begin(); it != data.end(); ++it) {
      if (it->is_string()) recorded[it.key()] = it->get<std::string>();
    }
  } else if (!cm.error().is_not_found()) {
    return cm.error().to_error();
  }
  std::lock_guard lock(mu_);
  recorded_ = std::move(recorded);
  return ok();
}

bool StateCommitRecorder::covers(const StateKey& key,
                                 const std::optional<std::string>& resource_version) const {
  std::lock_guard lock(mu_);
  const auto it = recorded_.find(entry_of(key));
  return it != recorded_.end() && fedapi::commit_covers(it->second, resource_version);
}

Status StateCommitRecorder::record(const StateKey& key, const std::string& value) {
  FED_TRY(write(key, value));
  std::lock_guard lock(mu_);
  recorded_[entry_of(key)] = value;
  return ok();
}

Status StateCommitRecorder::write(const StateKey& key, const std::string& value) {
  const auto ref = federation::configmap_ref(fedapi::kStateCommittedConfigMap);
  const json data{{entry_of(key), value}};
  // A merge patch touches this entry only: the copiers of the other kinds write theirs.
  auto patched = host_->patch(ref, kube::PatchType::Merge, json{{"data", data}}.dump());
  if (patched) return ok();
  if (!patched.error().is_not_found()) return patched.error().to_error();
  const json configmap{{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"metadata",
                        {{"name", std::string(fedapi::kStateCommittedConfigMap)},
                         {"namespace", std::string(fedapi::kNamespace)},
                         {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
                       {"data", data}};
  auto created = host_->create(ref.named(""), configmap);
  if (created) return ok();
  // Another copier created it meanwhile: patch that one.
  if (!created.error().is_already_exists()) return created.error().to_error();
  auto again = host_->patch(ref, kube::PatchType::Merge, json{{"data", data}}.dump());
  if (!again) return again.error().to_error();
  return ok();
}

}  // namespace fed::ha

#include "agent/manager/ha/state_copier.hpp"

#include <spdlog/spdlog.h>

#include "shared/fedapi/state_commit.hpp"

namespace fed::ha {

void StateMirror::reset(const std::vector<std::pair<StateKey, nlohmann::json>>& stored) {
  std::lock_guard lock(mu_);
  values_.clear();
  for (const auto& [key, object] : stored) values_[key] = stored_form(object).dump();
}

bool StateMirror::holds(const StateKey& key, const std::string& stored_form) const {
  std::lock_guard lock(mu_);
  const auto it = values_.find(key);
  return it != values_.end() && it->second == stored_form;
}

bool StateMirror::has(const StateKey& key) const {
  std::lock_guard lock(mu_);
  return values_.contains(key);
}

void StateMirror::put(const StateKey& key, std::string stored_form) {
  std::lock_guard lock(mu_);
  values_[key] = std::move(stored_form);
}

void StateMirror::remove(const StateKey& key) {
  std::lock_guard lock(mu_);
  values_.erase(key);
}

StateCopier::StateCopier(const ReplicatedKind& kind, kube::Informer& informer, StateStore& store,
                         StateMirror& mirror, StateCommitRecorder& commits)
    : kind_(kind), informer_(informer), store_(store), mirror_(mirror), commits_(commits) {}

Result<kube::Requeue> StateCopier::reconcile(const kube::Request& request) {
  const StateKey key{kind_.key_kind(), request.ns, request.name};
  const auto object = informer_.store().get(request.ns, request.name);
  // An object being deleted (its finalizer's work under way) is no longer wanted: a new
  // leader must not restore it, but delete it on its own host, which tears down that side.
  if (!object || (*object)["metadata"].contains("deletionTimestamp")) {
    if (mirror_.has(key)) {
      FED_TRY(store_.remove(key));
      mirror_.remove(key);
      spdlog::debug("state: {} removed from the federation etcd", to_string(key));
    }
    if (!commits_.covers(key, std::nullopt)) {
      FED_TRY(commits_.record(key, std::string(fedapi::kCommittedDeleted)));
    }
    return kube::Requeue{};
  }
  const nlohmann::json stored = stored_form(typed(kind_, *object));
  std::string bytes = stored.dump();
  if (!mirror_.holds(key, bytes)) {
    FED_TRY(store_.put(key, stored));
    mirror_.put(key, std::move(bytes));
    spdlog::debug("state: {} copied to the federation etcd", to_string(key));
  }
  // Committed (now or before) as of this version: a command waiting for it may return.
  const std::string version = (*object)["metadata"].value("resourceVersion", "");
  if (!version.empty() && !commits_.covers(key, version)) FED_TRY(commits_.record(key, version));
  return kube::Requeue{};
}

}  // namespace fed::ha

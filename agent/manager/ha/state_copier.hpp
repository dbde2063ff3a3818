#pragma once
// The leader's copy of its host's replicated objects into the federation etcd
// (docs/HA-STATE.md): one reconciler per replicated kind, in the project's reconcile shape —
// the request names an object, the informer's cache says whether it exists, and the store is
// made to match (put, or remove once it is gone or being deleted). StateMirror remembers what etcd holds as
// far as this leader knows (loaded at takeover, then each write it made), so an event that
// changes nothing replicated (a resync, a resourceVersion bump) costs no etcd write. Each
// commit is then recorded for the commands that wait on it (StateCommitRecorder).

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/ha/replicated_kinds.hpp"
#include "agent/manager/ha/state_commit_recorder.hpp"
#include "agent/manager/ha/state_store.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::ha {

class StateMirror final {
 public:
  // Replaces what is known with `stored` (a load()).
  void reset(const std::vector<std::pair<StateKey, nlohmann::json>>& stored);
  // True when etcd is known to hold exactly `stored_form` under `key`.
  bool holds(const StateKey& key, const std::string& stored_form) const;
  // True when etcd is known to hold anything under `key`.
  bool has(const StateKey& key) const;
  void put(const StateKey& key, std::string stored_form);
  void remove(const StateKey& key);

 private:
  mutable std::mutex mu_;
  std::map<StateKey, std::string> values_;
};

class StateCopier final : public kube::Reconciler {
 public:
  // `informer` caches `kind` on the leader's host; all must outlive the copier.
  StateCopier(const ReplicatedKind& kind, kube::Informer& informer, StateStore& store,
              StateMirror& mirror, StateCommitRecorder& commits);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  const ReplicatedKind& kind_;
  kube::Informer& informer_;
  StateStore& store_;
  StateMirror& mirror_;
  StateCommitRecorder& commits_;
};

}  // namespace fed::ha

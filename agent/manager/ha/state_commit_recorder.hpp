#pragma once
// The leader's record of what it committed to the federation etcd, on its own host: ConfigMap
// fed-state-committed (shared/fedapi/state_commit.hpp), one entry per replicated object — the
// resourceVersion of its host's copy that was committed, or "deleted". `kubectl fed` commands
// wait on it before they report success (docs/HA-STATE.md "Confirming a command"). It describes
// this host's API server only, so it is not replicated.

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agent/manager/ha/state_object.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::ha {

class StateCommitRecorder final {
 public:
  explicit StateCommitRecorder(std::shared_ptr<kube::DynamicClient> host);

  // Reads what the ConfigMap records now (a new leader's, before its copiers start).
  Status load();

  // True when the entry of `key` already covers `resource_version` (nullopt: a deletion), as
  // far as this process knows.
  bool covers(const StateKey& key, const std::optional<std::string>& resource_version) const;

  // Sets `key`'s entry to `value` (a resourceVersion, or fedapi::kCommittedDeleted); creates
  // the ConfigMap when it is missing.
  Status record(const StateKey& key, const std::string& value);

 private:
  Status write(const StateKey& key, const std::string& value);

  std::shared_ptr<kube::DynamicClient> host_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> recorded_;  // entry -> value, as last written or loaded
};

}  // namespace fed::ha

#pragma once
// StateStore: the federation's objects in the federation etcd (docs/HA-STATE.md), written by
// the leader only. Every write is one transaction guarded by the leader's fence (the compare
// "the leadership record is still mine", LeaderElector::fence()), so a deposed leader's late
// write fails instead of overwriting what its successor wrote. Reads are linearizable: a new
// leader restores its host from what a majority of members committed, never from a stale member.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/ha/state_object.hpp"
#include "shared/etcd/client.hpp"
#include "shared/result/result.hpp"

namespace fed::ha {

// The fence of the current leader (LeaderElector::fence); none while this process does not lead.
using FenceFunction = std::function<std::optional<etcd::Compare>()>;

class StateStore final {
 public:
  // `client` must outlive the store.
  StateStore(etcd::EtcdClient& client, FenceFunction fence,
             std::string prefix = std::string(kStatePrefix));

  // Stores stored_form(object) under `key`, if this process still leads when etcd applies it.
  // Permission "not the leader (fenced): write of <kind>/<ns>/<name> refused" when it does not
  // (without calling etcd when there is no fence at all): not retryable, since only a leader can
  // write and a deposed one never leads again in the same process. Invalid when the key is bad
  // or the object's metadata.name/namespace are not the key's; the etcd client's error (e.g.
  // Unavailable) otherwise. Writing the same object again is harmless.
  Status put(const StateKey& key, const nlohmann::json& object);

  // Deletes `key` under the same guard ("delete of ... refused"). Deleting an absent key
  // succeeds: the state wanted is reached either way.
  Status remove(const StateKey& key);

  // Every object under the prefix, from one linearizable range (a single revision: no object
  // is missing or newer than its neighbours), in etcd's key order. Invalid, naming the key,
  // when a key or value under the prefix does not parse.
  Result<std::vector<std::pair<StateKey, nlohmann::json>>> load();

  // etcd's current revision (linearizable), e.g. to tell whether anything was written since.
  Result<std::int64_t> revision();

  const std::string& prefix() const { return prefix_; }

 private:
  // One fenced transaction running `op` on `key`; `verb` names it in the refusal.
  Status fenced(const StateKey& key, etcd::TxnOp op, std::string_view verb);

  etcd::EtcdClient& client_;
  FenceFunction fence_;
  std::string prefix_;
};

}  // namespace fed::ha

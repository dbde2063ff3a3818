#pragma once
// A new leader's first step (docs/HA-STATE.md "Taking over"): make its host's API server hold
// the replicated objects etcd holds — create what only etcd has, update what differs, delete
// what etcd no longer has — before any controller starts, so that the controllers resume from
// what a majority committed, not from what this host last saw while it followed.
//
// etcd holding no state at all means no elected leader has copied anything yet: the first
// one of a federation (or of one that ran a single manager until now). Its host is then the
// truth and is copied into etcd instead. Once a federation has state it always has one
// FederationHost at least, so an empty store never stands for "everything was deleted".

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/ha/state_copier.hpp"
#include "agent/manager/ha/state_store.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::ha {

// What a takeover did, for the log and the tests.
struct RestoreSummary {
  bool seeded = false;  // etcd was empty: the host's objects were copied into it
  std::size_t created = 0, updated = 0, removed = 0, copied = 0;
};

std::string to_string(const RestoreSummary& summary);

// The host's replicated objects, each with its key.
using LiveObjects = std::vector<std::pair<StateKey, nlohmann::json>>;
// Reads them from somewhere faster than a list per kind (a standby's warm informers); fails
// when it cannot (a cache not synced yet).
using CachedObjects = std::function<Result<LiveObjects>()>;

// Restores (or seeds) as above, then sets `mirror` to what etcd holds. The first plan is made
// from `cached` when given — a takeover then lists nothing — and every later one from lists
// of the host's API server: a Conflict (an object changed between the read and the write, or
// a cache a little behind) re-lists and re-plans, a few times.
Result<RestoreSummary> restore_host_state(kube::DynamicClient& host, StateStore& store,
                                          StateMirror& mirror, const CachedObjects& cached = {});

}  // namespace fed::ha

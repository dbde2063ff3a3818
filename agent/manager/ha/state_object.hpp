#pragma once
// The federation's objects as the replicated state store keeps them (docs/HA-STATE.md): where
// each lives in etcd, the form it is stored in, and what a new leader must do to its own host's
// API server to make it match etcd. Pure: no I/O, so the rules are unit-tested on their own.

#include <compare>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::ha {

// The default prefix of every state key; the election's record lives beside it, not under it.
inline constexpr std::string_view kStatePrefix = "/kubectl-fed/state/";

// Which object. `kind` is the plural resource with its group, the core group having none:
// "federatedclusters.fed.kubectl-fed.io", "secrets". `ns` is empty for a cluster-scoped object.
struct StateKey {
  std::string kind;
  std::string ns;
  std::string name;

  friend bool operator==(const StateKey&, const StateKey&) = default;
  friend auto operator<=>(const StateKey&, const StateKey&) = default;
};

// "<kind>/<ns or _>/<name>", for messages.
std::string to_string(const StateKey& key);

// Invalid unless kind and name are non-empty and no part contains '/' (it would shift the parts
// of the etcd key) and ns is not "_" (the key's stand-in for "no namespace"). Kubernetes names
// and namespaces never contain either, so this refuses only bugs.
Status check_state_key(const StateKey& key);

// prefix + "<kind>/<ns or _>/<name>", e.g. "/kubectl-fed/state/secrets/kubectl-fed-system/ca".
// A prefix without a trailing '/' gets one. `key` should pass check_state_key.
std::string state_etcd_key(std::string_view prefix, const StateKey& key);
// The inverse; Invalid, naming the key, when it is not under `prefix` or not three valid parts.
Result<StateKey> parse_state_etcd_key(std::string_view prefix, std::string_view etcd_key);

// The end of the etcd range holding every key that starts with `prefix` (its last byte + 1).
std::string prefix_range_end(std::string_view prefix);

// The object as stored: without what an API server assigns, which differs between the hosts'
// API servers and would make every host's copy look changed. metadata keeps only name,
// namespace, labels, annotations and finalizers (empty ones dropped: servers omit them);
// resourceVersion, uid, creationTimestamp, generation, managedFields, selfLink,
// deletionTimestamp, deletionGracePeriodSeconds go, and so do ownerReferences, whose uids name
// objects of one API server only. Every other top-level field stays: apiVersion, kind, spec,
// status, data, binaryData, stringData, type, immutable.
nlohmann::json stored_form(const nlohmann::json& object);

// True when the live object, stored, would be `stored`: nothing to restore.
bool same_state(const nlohmann::json& stored, const nlohmann::json& live);

// What a new leader does to its host's API server so that it holds what etcd holds.
struct RestorePlan {
  // Stored but not live: the stored form, to create.
  std::vector<std::pair<StateKey, nlohmann::json>> create;
  // Live but different: the stored form with the live object's metadata.resourceVersion, so
  // that the update is refused (Conflict) if the object changed since it was listed.
  std::vector<std::pair<StateKey, nlohmann::json>> update;
  // Live and different in the status alone (say a FederationHost's etcd health, which the
  // leader rewrites every few seconds): the same, written through the status subresource only.
  std::vector<std::pair<StateKey, nlohmann::json>> update_status;
  // Live but not stored: to delete.
  std::vector<StateKey> remove;
};

// Compares etcd's objects (`stored`, as load() returns them) with the host's (`live`, as listed,
// only the federation's objects of the replicated kinds: everything in `live` that etcd lacks
// is removed). Each list is sorted by key, so the plan does not depend on listing order; a key
// given twice counts once, the last one.
RestorePlan plan_restore(const std::vector<std::pair<StateKey, nlohmann::json>>& stored,
                         const std::vector<std::pair<StateKey, nlohmann::json>>& live);

}  // namespace fed::ha

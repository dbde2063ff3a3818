#pragma once
// How a `kubectl fed` command learns that what it wrote is committed to the federation etcd
// (docs/HA-STATE.md "Confirming a command"): the leader's copier records, in the ConfigMap
// fed-state-committed of its host, the resourceVersion of each replicated object whose state it
// committed (or "deleted"); the command waits until its object's entry reaches what it wrote.
// Both sides name an object's entry with committed_key().

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "shared/kube/resource_ref.hpp"

namespace fed::fedapi {

inline constexpr std::string_view kStateCommittedConfigMap = "fed-state-committed";
// The entry of an object whose deletion is committed.
inline constexpr std::string_view kCommittedDeleted = "deleted";

// "<resource>.<group>", or the resource alone in the core group ("secrets"): how the state
// store names a kind.
std::string state_kind(const kube::GroupVersionResource& gvr);

// The ConfigMap key of one object, "<kind>_<namespace>_<name>" (namespace empty when
// cluster-scoped): '_' is in no kind, namespace or name, and every other character of them is
// allowed in a ConfigMap key.
std::string committed_key(std::string_view kind, std::string_view ns, std::string_view name);

// Whether entry `recorded` covers what a command wrote: `resource_version` (its object as read
// after the write; nullopt: it deleted the object). A resourceVersion of one API server is its
// etcd revision, so later states have larger numbers.
bool commit_covers(std::string_view recorded, const std::optional<std::string>& resource_version);

}  // namespace fed::fedapi

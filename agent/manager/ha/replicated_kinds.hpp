#pragma once
// Which of a host's objects are the federation's, replicated through the federation etcd to
// every host (docs/HA-STATE.md): the membership (FederatedCluster and the member credential
// Secrets), the hosts (FederationHost), the member-to-member links (DirectPeering) and the
// reconfiguration records (FeatureConfig). What one host's workloads and gateway use — its
// IPAM, NAT and endpoint mappings, Peerings, offloadings, replications — is that host's own:
// each host is the hub of its own data path, so it is not replicated (docs/HA-STATE.md says why).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/ha/state_object.hpp"
#include "shared/kube/resource_ref.hpp"

namespace fed::ha {

struct ReplicatedKind {
  kube::ResourceRef collection;  // name empty; the namespace for namespaced kinds
  std::string label_selector;    // which of the collection are the federation's ("" = all)
  std::string api_version;       // what a listed item may lack, and a create needs
  std::string kind;
  // False when the status describes the host that wrote it: a FederatedCluster's is the
  // member's link with that host (each host is the hub of its own tunnels), which the new
  // leader's controller writes for its own host; restoring another host's would be wrong and
  // would cost writes at every takeover.
  bool replicate_status = true;
  // The StateKey's kind: the plural resource with its group ("secrets" in the core group).
  std::string key_kind() const;
};

// The replicated kinds, in the order a restore creates them (a FederatedCluster's credential
// Secret before it).
const std::vector<ReplicatedKind>& replicated_kinds();

// `object`'s key as an object of `kind`.
StateKey state_key_of(const ReplicatedKind& kind, const nlohmann::json& object);

// `object` as replicated: kind's apiVersion and kind set (list items and informer caches may
// omit them), without the status when the kind's is not replicated.
nlohmann::json typed(const ReplicatedKind& kind, nlohmann::json object);

// The replicated kind whose key_kind() is `key_kind`; nullptr for none.
const ReplicatedKind* replicated_kind_named(std::string_view key_kind);

}  // namespace fed::ha

#pragma once
// What the members' NamespaceMaps report as usable: the replicas in phase Accepted (the remote
// namespace exists and the federation may work in it). Shared by the reflectors and the
// virtual kubelet.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"

namespace fed::offload {

// Host namespace -> member namespace, from status.currentMapping; empty when the NamespaceMap
// has no status or it does not decode.
std::map<std::string, std::string> accepted_replicas(const nlohmann::json& namespace_map);

struct ReplicaClient {
  std::string member;
  std::string ns;  // the member namespace
  std::shared_ptr<kube::DynamicClient> client;
};
// The Accepted replicas of host namespace `ns` on every member, with the member's client;
// `missing` is set when a member replicating it is not reachable now.
std::vector<ReplicaClient> replicas_of(const kube::Informer& namespace_maps,
                                       const MemberClient& member_client, const std::string& ns,
                                       bool& missing);

}  // namespace fed::offload

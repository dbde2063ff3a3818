#pragma once
// How the commands that act on the federation's host (offload, peer, replicate, unjoin) reach it:
// cluster of --context, refused unless its federation ConfigMap says it is a host, so that a
// command aimed at a member fails with one line naming the fix instead of a 404 for a CRD the
// member does not have.

#include <memory>
#include <optional>
#include <string>

#include "plugin/cli/global_options.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

struct HostConnection {
  std::shared_ptr<kube::DynamicClient> client;
  std::string cluster_id;     // the host's id (its federation ConfigMap)
  std::string federation_id;  // the federation's: its first host's id (docs/HA.md)
  // Whether its managers elect a leader (fed-leader with an epoch), i.e. replicate what the
  // leader writes; known once the leader was looked up, so that fed-leader is read once.
  std::optional<bool> replicated;
};

// A client for the host of --context/--kubeconfig. NotFound when the cluster is not a
// federation host ("run kubectl fed init there first, or pass the host's --context"); the
// kubeconfig's and API's errors otherwise.
Result<HostConnection> connect_host(const GlobalOptions& global);

// The namespace a namespaced command acts in: -n, else the context's (kubectl's rule). Reads
// only the kubeconfig, and not even that when -n is given.
Result<std::string> command_namespace(const GlobalOptions& global);

}  // namespace fed::plugin

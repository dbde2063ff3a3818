#pragma once
// Removing kubectl-fed from a member (unjoin, docs/JOIN.md): every object labelled
// app.kubernetes.io/part-of=kubectl-fed, in an order that lets the agent's preStop uninstall its
// kernel state first (DaemonSet and its pods, then the federation's objects, RBAC, namespace and
// CRDs), and the gateway label off the nodes.

#include <chrono>
#include <string>
#include <vector>

#include "plugin/cli/output.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The collections kubectl-fed writes to, in deletion order (workloads first, CRDs last).
const std::vector<kube::ResourceRef>& labelled_collections();

// "kind/name" (with "ns/" for namespaced objects) of every object still labelled part-of
// kubectl-fed. Collections the server does not serve (CRDs gone) are skipped.
Result<std::vector<std::string>> labelled_leftovers(kube::DynamicClient& client);

// Deletes everything labelled part-of kubectl-fed and waits until none is left (namespace and
// CRDs finish terminating) or `timeout` passes (Unavailable naming what is left). Returns what
// was deleted.
Result<std::vector<std::string>> remove_labelled(kube::DynamicClient& client,
                                                 std::chrono::milliseconds timeout, Output& out);

}  // namespace fed::plugin

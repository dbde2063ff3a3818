#pragma once
// kubectl fed unjoin MEMBER: moves the pods off the member while its data path still works
// (cordon and drain of its virtual node, PodDisruptionBudgets respected), deletes the
// FederatedCluster (the manager's finalizer tears the peering down on both sides), then everything
// labelled part-of kubectl-fed on the member (the agent's preStop uninstalls its kernel state),
// then the credential Secret on the host (docs/JOIN.md). --force moves nothing and does not wait
// for the manager.

#include <chrono>
#include <string>

#include "plugin/cli/command.hpp"
#include "plugin/connect/member_connection.hpp"

namespace fed::plugin {

struct UnjoinOptions {
  std::string member;        // MEMBER
  MemberFlags member_flags;  // default: the context named MEMBER
  bool force = false;  // --force: no drain; drop the finalizer instead of waiting for the manager
  std::chrono::milliseconds timeout{std::chrono::minutes(3)};  // --timeout
};

Status run_unjoin(const GlobalOptions& global, const UnjoinOptions& options, Output& out);

// The command table entry.
extern const Command kUnjoinCommand;

}  // namespace fed::plugin

#pragma once
// kubectl fed replicate NAME / kubectl fed unreplicate NAME (spec 001 §2.5, the thesis'
// LiqoDeployment): the DeploymentReplication NAME in an offloaded namespace, written by
// server-side apply from a Deployment (-f or --from-deployment) and flags. The manager creates
// one Deployment NAME-xxxxx per combination of the generation labels' values over the eligible
// virtual nodes and reports them in the status; --wait follows its Ready condition.
// Replicating again with the same input changes nothing.

#include <chrono>
#include <string>

#include "plugin/cli/command.hpp"
#include "plugin/replicate/replication_spec.hpp"

namespace fed::plugin {

struct UnreplicateOptions {
  std::string name;
  bool wait = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
};

// Checks, reads the Deployment, then (unless --dry-run=client) warns, applies and waits.
// Invalid (exit 2) before anything is read from the cluster for every flag and -f problem.
Status run_replicate(const GlobalOptions& global, const ReplicateOptions& options, Output& out);
// Deletes the DeploymentReplication (its replicas go by garbage collection); NotFound when
// there is none. --wait until it and every Deployment labelled replica-of=NAME are gone.
Status run_unreplicate(const GlobalOptions& global, const UnreplicateOptions& options, Output& out);

extern const Command kReplicateCommand;
extern const Command kUnreplicateCommand;

}  // namespace fed::plugin

#pragma once
// kubectl fed reconfigure: change allow-listed KubeletConfiguration fields on every node of one
// or more clusters, node by node (--max-unavailable), each node through a one-shot privileged
// Pod running `fed-agent reconfigure-node` (backup, restart, health gate, rollback), clusters
// in parallel; and `kubectl fed reconfigure status`. docs/RECONFIGURE.md.

#include "plugin/cli/command.hpp"
#include "plugin/reconfigure/reconfigure_plan.hpp"

namespace fed::plugin {

// Applies the change to every cluster of --context (repeatable; the current context when none),
// or to the federation's members --clusters (or the FeatureConfig) selects on the host.
// Checks every --set before contacting a cluster (Invalid, exit 2).
Status run_reconfigure(const GlobalOptions& global, const ReconfigureOptions& options, Output& out);

// Prints the per-node status of every cluster of --context, or of the members --clusters selects.
Status run_reconfigure_status(const GlobalOptions& global, const ReconfigureOptions& options,
                              Output& out);

// The command table entry.
extern const Command kReconfigureCommand;

}  // namespace fed::plugin

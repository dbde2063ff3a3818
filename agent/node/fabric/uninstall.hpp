#pragma once
// Removing every route, policy rule, link, chain and jump the agent made on this node, and
// nothing else: only objects carrying the agent's marks (its table and priority, FED- chains
// and jumps to them, the overlay device with its alias). Idempotent and best-effort: it goes on
// past failures and reports all of them.

#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/fabric/node_reconciler.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

Status uninstall_datapath(DatapathDeps deps, const DatapathConfig& config);

}  // namespace fed::fabric

#pragma once
// Routes and policy rules of a node: what the state asks for, and the plan from what the
// kernel has to that. Pure functions on plain values.
//
// Every peer range (PodCIDR and ExternalCIDR views) gets "to <range> lookup <table>" and a route
// in the agent's table: via the gateway's overlay address on worker nodes, via the peer's
// tunnel endpoint on the gateway. The gateway also sends what arrives from a tunnel to pods of
// other nodes back over the overlay ("iif <tunnel> lookup <table>"), so both directions take
// the same path. With --direct-routing, on-link nodes are reached by their node IP instead of
// their overlay address, both ways (fabric/direct_routing.hpp).

#include <vector>

#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/fabric/direct_routing.hpp"
#include "agent/node/fabric/node_state.hpp"
#include "agent/node/os/route_table.hpp"

namespace fed::fabric {

// Routes and rules of the agent's table, desired or observed.
struct RouteSet {
  std::vector<os::Route> routes;
  std::vector<os::PolicyRule> rules;
};

// Applied in this order so traffic never meets a rule whose routes are missing.
struct RouteChanges {
  std::vector<os::PolicyRule> delete_rules;
  std::vector<os::Route> delete_routes;
  std::vector<os::Route> replace_routes;
  std::vector<os::PolicyRule> add_rules;

  bool empty() const {
    return delete_rules.empty() && delete_routes.empty() && replace_routes.empty() &&
           add_rules.empty();
  }
};

// The routes and rules `state` asks for on its node; nodes in `direct` are routed to by their
// node IP on the given link instead of over the overlay.
RouteSet desired_routes(const NodeNetworkState& state, const DatapathConfig& config,
                        const DirectNodes& direct = {});

// The changes that turn `observed` into `desired`: stale and duplicate entries go, missing and
// different ones come. Planning against the applied result yields no changes.
RouteChanges plan_routes(const RouteSet& desired, const RouteSet& observed);

}  // namespace fed::fabric

#pragma once
// The membership module of `fed-agent manager` (spec 002, docs/JOIN.md): the FederatedCluster,
// EndpointMapping and DirectPeering controllers, added to the role's controller manager.

#include <memory>

#include "agent/manager/membership/membership_reconciler.hpp"
#include "shared/kube/controller_manager.hpp"

namespace fed::federation {

// What the other modules use of membership once it is added.
struct Membership {
  // The FederatedCluster controller's view of the members: their clients once joined.
  MembershipReconciler& members;
};

// Adds the three controllers and their informers to `manager`. `host.ipam` must outlive it.
Membership add_membership_controllers(kube::ControllerManager& manager, const HostCluster& host);

}  // namespace fed::federation

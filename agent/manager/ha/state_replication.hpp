#pragma once
// The replicated state's place among the leader's components (docs/HA-STATE.md): the restore
// runs first, before any controller can read or write a federation object, then one copier
// per replicated kind keeps etcd following the host for as long as this manager leads.

#include <memory>

#include "agent/manager/ha/state_store.hpp"
#include "shared/etcd/client.hpp"
#include "shared/kube/controller_manager.hpp"

namespace fed::ha {

// Adds the "state restore" runnable and the copiers to `manager`, as its next components:
// call it before adding any other. `etcd` must outlive the manager; `fence` is the leader's.
void add_state_replication(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                           FenceFunction fence);

}  // namespace fed::ha

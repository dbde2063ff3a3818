#pragma once
// NodeReconciler: one node's datapath as a fed::kube::Reconciler. Each pass loads the desired
// state, then for the overlay, the routes, the DNAT maps and the nat table in turn reads the
// kernel through the agent/node/os interfaces (the maps only now and then: fabric/dnat_sync.hpp),
// plans and applies; a failing part does not stop the others.
// The request key is ignored: a node has one datapath (the role uses {"", node name}).

#include <chrono>

#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/fabric/datapath_metrics.hpp"
#include "agent/node/fabric/dnat_sync.hpp"
#include "agent/node/fabric/state_source.hpp"
#include "agent/node/os/dnat_table.hpp"
#include "agent/node/os/link_manager.hpp"
#include "agent/node/os/nat_table.hpp"
#include "agent/node/os/route_table.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::fabric {

// The kernel, as the datapath reaches it.
struct DatapathDeps {
  os::RouteTable& routes;
  os::LinkManager& links;
  os::NatTable& nat;
  os::DnatTable& dnat;
};

class NodeReconciler final : public kube::Reconciler {
 public:
  // `metrics` may be null. A successful pass asks to be requeued after `resync`, which is how
  // changes made by hand are undone.
  NodeReconciler(DatapathDeps deps, NodeStateSource& source, DatapathConfig config,
                 std::chrono::milliseconds resync, DatapathMetrics* metrics);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // Converges the kernel to `state` (without loading); what reconcile() does after loading.
  Status converge(const NodeNetworkState& state, OwnedCounts* owned = nullptr);

  // A pass over the DNAT maps alone, for a change of the endpoint mappings only: they decide
  // nothing else, so the overlay, the routes and the nat chains wait for the next full pass.
  // One transaction that commits the change is then the whole pass.
  Status reconcile_mappings();

 private:
  // The DNAT part of a pass; `owned` gets its entries and rules.
  Status converge_dnat(const NodeNetworkState& state, OwnedCounts& owned);

  DatapathDeps deps_;
  NodeStateSource& source_;
  DatapathConfig config_;
  std::chrono::milliseconds resync_;
  DatapathMetrics* metrics_;
  DnatSync dnat_;
  OwnedCounts owned_;  // after the last pass; one worker, no lock
};

}  // namespace fed::fabric

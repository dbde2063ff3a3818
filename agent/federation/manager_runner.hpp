#pragma once
// `fed-agent manager`: the federation controllers on the host cluster. Today the membership
// controller (FederatedCluster → IPAM on both sides, Peerings, status); offloading and
// replication controllers join it here as they arrive.

#include <atomic>
#include <memory>

#include "federation/cluster_ipam.hpp"
#include "federation/direct_peering_reconciler.hpp"
#include "federation/endpoint_mapping_reconciler.hpp"
#include "federation/membership_reconciler.hpp"
#include "kube/controller.hpp"
#include "kube/informer.hpp"
#include "roles/role_runner.hpp"

namespace fed::federation {

class ManagerRunner final : public agent::RoleRunner {
 public:
  agent::Role role() const override { return agent::Role::Manager; }
  // Connects to the host (--kubeconfig/--context, else in-cluster), reads its federation
  // ConfigMap, restores its IPAM and starts the controllers. Fails when the host was never
  // initialised (kubectl fed init).
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override { return ready_.load(); }
  void stop() override;

 private:
  std::shared_ptr<kube::DynamicClient> host_;
  std::unique_ptr<ClusterIpam> host_ipam_;
  std::unique_ptr<kube::Informer> clusters_;
  std::unique_ptr<MembershipReconciler> membership_;
  std::unique_ptr<kube::Controller> controller_;
  std::unique_ptr<kube::Informer> endpoint_mappings_;
  std::unique_ptr<kube::Informer> nat_mappings_;  // the host's, checked against the IPAM
  std::unique_ptr<EndpointMappingReconciler> endpoint_reconciler_;
  std::unique_ptr<kube::Controller> endpoint_controller_;
  std::unique_ptr<kube::Informer> direct_peerings_;
  std::unique_ptr<DirectPeeringReconciler> direct_reconciler_;
  std::unique_ptr<kube::Controller> direct_controller_;
  std::atomic<bool> ready_{false};
};

}  // namespace fed::federation

#pragma once
// The manager's host controller (docs/HA.md): for each FederationHost, keeps the host's member
// in the federation etcd as etcd_membership.hpp decides — added as a learner, promoted once it
// started, removed when the FederationHost is deleted (finalizer kubectl-fed.io/etcd-member) —
// and reports it in the status (phase, memberID, started, initialCluster, Ready); and gives the
// host its tunnel address (tunnel_addresses.hpp), which its manager uses when it leads. It runs on
// the leader only, like every controller; membership changes are not transactions, so unlike
// the leader's other etcd writes they carry no fence: a deposed leader's late one is at worst
// an idempotent repeat (the member list is read first).

#include <memory>

#include "shared/etcd/client.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::hosts {

inline constexpr std::string_view kEtcdMemberFinalizer = "kubectl-fed.io/etcd-member";

class HostReconciler final : public kube::Reconciler {
 public:
  // `federation_id`: the first host's cluster id, whose tunnel address is the first host's.
  HostReconciler(std::shared_ptr<kube::DynamicClient> client, kube::Informer& hosts,
                 etcd::EtcdClient& etcd, std::string federation_id);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  Status assign_tunnel_address(const nlohmann::json& host);
  Status report(const nlohmann::json& host, const std::vector<etcd::MemberInfo>& members,
                const std::string& peer_url, bool deleting, const std::string& message);

  std::shared_ptr<kube::DynamicClient> client_;
  kube::Informer& hosts_;
  etcd::EtcdClient& etcd_;
  std::string federation_id_;
};

// Registers the host controller with `manager`; `etcd` must outlive it.
void add_host_controller(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                         const std::string& federation_id);

}  // namespace fed::hosts

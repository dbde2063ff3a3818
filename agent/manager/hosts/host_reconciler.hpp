#pragma once
// The manager's host controller (docs/HA.md): for each FederationHost, keeps the host's member
// in the federation etcd as etcd_membership.hpp decides — added as a learner, promoted once it
// started, removed when the FederationHost is deleted (finalizer kubectl-fed.io/etcd-member) —
// and reports it in the status (phase, memberID, started, initialCluster, Ready). It runs on
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
  HostReconciler(std::shared_ptr<kube::DynamicClient> client, kube::Informer& hosts,
                 etcd::EtcdClient& etcd);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  Status report(const nlohmann::json& host, const std::vector<etcd::MemberInfo>& members,
                const std::string& peer_url, bool deleting, const std::string& message);

  std::shared_ptr<kube::DynamicClient> client_;
  kube::Informer& hosts_;
  etcd::EtcdClient& etcd_;
};

// Registers the host controller with `manager`; `etcd` must outlive it.
void add_host_controller(kube::ControllerManager& manager, etcd::EtcdClient& etcd);

}  // namespace fed::hosts

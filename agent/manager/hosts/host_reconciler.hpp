#pragma once
// The manager's host controller (docs/HA.md): for each FederationHost, keeps the host's member
// in the federation etcd as etcd_membership.hpp decides — added as a learner, promoted once it
// started, removed when the FederationHost is deleted (finalizer kubectl-fed.io/etcd-member) —
// and reports it in the status (phase, memberID, started, initialCluster, Ready, and every 5 s
// the member's health, member_health.hpp); and gives the
// host its tunnel address (tunnel_addresses.hpp), which its manager uses when it leads. It runs on
// the leader only, like every controller; membership changes are not transactions, so unlike
// the leader's other etcd writes they carry no fence: a deposed leader's late one is at worst
// an idempotent repeat (the member list is read first).

#include <memory>
#include <optional>

#include "agent/manager/hosts/member_probe.hpp"
#include "shared/etcd/client.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::hosts {

inline constexpr std::string_view kEtcdMemberFinalizer = "kubectl-fed.io/etcd-member";

// Where the etcd leader is, is left to etcd. Moving it to the leading manager's host (so that
// losing a follower host never costs an etcd election, which outlasts the manager's 450 ms
// renew deadline) was tried: the transfer itself stalled the manager's renewals past that
// deadline, each move costing a manager failover (docs/HA.md). It is moved only away from a
// member about to be removed, whose own step-down would stall them longer.
class HostReconciler final : public kube::Reconciler {
 public:
  // `host_id`: this manager's host. `federation_id`: the first host's cluster id, whose tunnel
  // address is the first host's.
  HostReconciler(std::shared_ptr<kube::DynamicClient> client, kube::Informer& hosts,
                 etcd::EtcdClient& etcd, etcd::TlsFiles tls, std::string host_id,
                 std::string federation_id);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  Status assign_tunnel_address(const nlohmann::json& host);
  // Hands the etcd leadership to member `id`; a failure is logged (etcd's own election follows).
  void move_raft_leader(const std::vector<etcd::MemberInfo>& members, std::uint64_t id);
  // This host's member, from its FederationHost's peer URL.
  std::optional<etcd::MemberInfo> own_member(const std::vector<etcd::MemberInfo>& members) const;
  Status report(const nlohmann::json& host, const std::vector<etcd::MemberInfo>& members,
                const std::string& peer_url, bool deleting, const std::string& message,
                const nlohmann::json& health = nullptr);

  std::shared_ptr<kube::DynamicClient> client_;
  kube::Informer& hosts_;
  etcd::EtcdClient& etcd_;
  MemberProbe probe_;
  std::string host_id_;
  std::string federation_id_;
};

// Registers the host controller with `manager`; `etcd` must outlive it. `tls` is the
// manager's etcd client certificate, with which it asks the other members how they are.
void add_host_controller(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                         const etcd::TlsFiles& tls, const std::string& host_id,
                         const std::string& federation_id);

}  // namespace fed::hosts

#pragma once
// The manager's host controller (docs/HA.md): for each FederationHost, keeps the host's member
// in the federation etcd as etcd_membership.hpp decides — added as a learner, promoted once it
// started, removed when the FederationHost is deleted (finalizer kubectl-fed.io/etcd-member) —
// and reports it in the status (phase, memberID, started, initialCluster, Ready, and every 5 s
// the member's health, member_health.hpp); keeps the etcd cluster's leader on its own host's
// member; and gives the
// host its tunnel address (tunnel_addresses.hpp), which its manager uses when it leads. It runs on
// the leader only, like every controller; membership changes are not transactions, so unlike
// the leader's other etcd writes they carry no fence: a deposed leader's late one is at worst
// an idempotent repeat (the member list is read first).

#include <chrono>
#include <memory>
#include <optional>

#include "agent/manager/hosts/member_probe.hpp"
#include "shared/etcd/client.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::hosts {

inline constexpr std::string_view kEtcdMemberFinalizer = "kubectl-fed.io/etcd-member";

// Why the etcd leader is kept on the leading manager's host: a manager's renewals must commit
// within its renew deadline (450 ms), shorter than etcd takes to elect a new leader (its 500 ms
// election timeout and more), so losing the host of the etcd leader would cost the manager its
// leadership too. Together, losing a follower host costs nothing, and losing the leader's host
// costs both at once, the etcd election running during the manager's lease.
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
  // True when the move succeeded; tried at most every kMoveRetry, and not in the first
  // kMoveAfterTakeover of the term, unless `now_or_never`.
  bool move_raft_leader_here(const std::vector<etcd::MemberInfo>& members, std::uint64_t id,
                             bool now_or_never = false);
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
  std::optional<std::chrono::steady_clock::time_point> last_move_;
  std::optional<std::chrono::steady_clock::time_point> started_;  // the first reconcile
};

// Registers the host controller with `manager`; `etcd` must outlive it. `tls` is the
// manager's etcd client certificate, with which it asks the other members how they are.
void add_host_controller(kube::ControllerManager& manager, etcd::EtcdClient& etcd,
                         const etcd::TlsFiles& tls, const std::string& host_id,
                         const std::string& federation_id);

}  // namespace fed::hosts

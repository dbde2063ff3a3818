#pragma once
// The manager's FederatedCluster controller (docs/JOIN.md, spec 002 §2): for every joined
// member it runs the network exchange in both directions — each side's IPAM keeps or remaps
// the other's PodCIDR and ExternalCIDR and learns how it is seen — persists both IPAMs, writes
// the Peering of each side with the peer gateway's endpoint and key, and reports the member's
// networks and conditions. A finalizer tears all of it down when the member is unjoined.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/membership/cluster_ipam.hpp"
#include "agent/manager/membership/member_connections.hpp"
#include "agent/manager/membership/peering_writer.hpp"
#include "agent/manager/membership/pending_recheck.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::federation {

inline constexpr std::string_view kFinalizer = "kubectl-fed.io/membership";

struct HostCluster {
  std::shared_ptr<kube::DynamicClient> client;
  ClusterInfo info;
  ClusterIpam* ipam = nullptr;
  // The host's own address on its tunnels (tunnel_addresses.hpp); empty: the first host's.
  std::function<Result<std::string>()> tunnel_address;
};

class MembershipReconciler final : public kube::Reconciler {
 public:
  // `clusters` is the FederatedCluster informer; the reconciler reads objects from its cache.
  // `credentials` caches the members' credential Secrets (MemberConnections).
  // `hosts` caches the FederationHosts: a member's Peering with a host no longer among them
  // is taken away (former_hosts.hpp); none: Peerings are left as they are.
  MembershipReconciler(HostCluster host, kube::Informer& clusters,
                       const kube::Informer* credentials = nullptr,
                       const kube::Informer* hosts = nullptr);

  // The FederatedCluster a host Peering belongs to (a Peering is named after its peer's
  // cluster id): the gateway's agent reports the handshake there, and the status follows.
  std::vector<kube::Request> cluster_of_peering(const nlohmann::json& peering) const;

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  struct Member {
    std::shared_ptr<kube::DynamicClient> client;
    ClusterInfo info;
    std::unique_ptr<ClusterIpam> ipam;
  };
  struct JoinedMember {
    std::shared_ptr<Member> member;
    std::string tunnel_address;  // on the gateway's tunnel interface
    fedapi::TunnelBackend backend = fedapi::TunnelBackend::WireGuard;  // its spec.tunnelBackend
  };
  // A member this controller has peered with the host (its FederatedCluster has a tunnel
  // address): its connection and IPAM, shared with the direct-peering controller. NotFound
  // when no FederatedCluster names it, Unavailable while it is not peered yet.
  Result<JoinedMember> joined_member(const std::string& id);

 private:
  Result<kube::Requeue> join(const nlohmann::json& fc);
  Status leave(const nlohmann::json& fc);
  // Removes member `id`'s Peering, NatMapping and IPAM entry of every former host.
  Status forget_former_hosts(const std::string& id, Member& mem);
  // The member's client, info and IPAM (cached); a failure is reported in the status.
  Result<std::shared_ptr<Member>> member(const nlohmann::json& fc);
  Result<std::string> tunnel_address(const nlohmann::json& fc);
  Result<std::string> host_tunnel_address() const;
  Status set_finalizer(const nlohmann::json& fc, bool present);
  Status report(const nlohmann::json& fc, const std::string& reason, const std::string& message,
                const nlohmann::json& networks, const nlohmann::json& tunnel, bool network_ready,
                bool tunnel_ready);

  HostCluster host_;
  kube::Informer& clusters_;
  const kube::Informer* hosts_;
  MemberConnections connections_;
  std::mutex mu_;  // members_ (one worker today; cheap insurance for more)
  std::map<std::string, std::shared_ptr<Member>> members_;
  // By member: the hosts and members its Peerings were last checked against.
  std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> pruned_for_;
  PendingRecheck recheck_;
};

}  // namespace fed::federation

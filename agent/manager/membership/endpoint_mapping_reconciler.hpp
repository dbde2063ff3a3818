#pragma once
// The manager's EndpointMapping controller: MapEndpointIP / UnmapEndpointIP of spec 002 §2.4 as
// API objects on the host. For each EndpointMapping (peer, endpoint as the host sees it) it asks
// the host IPAM for the address the peer must use, persists the IPAM, and — when the endpoint is
// not the host's own pod, e.g. a pod of another member reached hub-and-spoke — writes the
// peer's NatMapping of the address's block so the host gateway DNATs that address to the
// endpoint. Deleting the object releases the peer's reference once no other EndpointMapping
// holds it. No finalizer: it would cost two writes per mapping (a third of a backlog's), and a
// manager that was down when objects went finds what they held by a sweep at start.
//
// Both writes are group commits of the blocks that changed: several workers map concurrently,
// and each write carries every change made while the previous one was in flight. NatMappings
// are watched too, so one lost or edited is written back from the IPAM, one left for a peer
// that is gone or for a block that emptied is removed, and the one-per-peer NatMapping of an
// older release is replaced by its blocks'.

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/manager/membership/cluster_ipam.hpp"
#include "agent/manager/membership/membership_reconciler.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"
#include "shared/util/group_commit.hpp"

namespace fed::federation {

// Set by releases before the sweep; taken off (after releasing) when such an object is deleted.
inline constexpr std::string_view kLegacyEndpointFinalizer = "kubectl-fed.io/endpoint-mapping";

class EndpointMappingReconciler final : public kube::Reconciler {
 public:
  EndpointMappingReconciler(HostCluster host, kube::Informer& mappings,
                            kube::Informer& nat_mappings);

  // Requests are EndpointMapping names, nat_mapping_request() for a NatMapping event, or a
  // peer's startup check.
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // What the NatMapping informer's events enqueue: a key EndpointMappings (cluster-scoped,
  // so ns is always empty) cannot have.
  static std::vector<kube::Request> nat_mapping_request(const nlohmann::json& nat_mapping);
  // A NatMapping check of every peer in the IPAM, to enqueue at start: a manager that died
  // between the IpamBlock and the NatMapping write catches up, and one lost while it was down
  // (so no informer event) is written back. And the sweep of what deleted EndpointMappings held.
  std::vector<kube::Request> startup_requests();

 private:
  Result<kube::Requeue> map(const nlohmann::json& object);
  // Drops `peer`'s reference to `endpoint` from the IPAM and stores that.
  Status unmap(const std::string& peer, const std::string& endpoint);
  // The same in the IPAM only, its mutex held: false when the peer is gone (nothing to store).
  Result<bool> unmap_locked(const std::string& peer, const std::string& endpoint);
  // Records that EndpointMapping `name` holds `target` (the IPAM's mutex held).
  void hold(const std::string& name, const std::pair<std::string, std::string>& target);
  // The EndpointMapping `name` is gone: unmaps what it held unless another one holds it too,
  // or another live one names the same target (held once reconciled).
  Status release(const std::string& name);
  // Counts `object`'s target among the live EndpointMappings (delta +1 or -1); one being
  // deleted counts no more.
  void count_live(const nlohmann::json& object, int delta);
  // Unmaps what the IPAM holds for no live or held EndpointMapping (deleted while no manager
  // ran).
  Result<kube::Requeue> sweep();
  // Whether the stored NatMapping of (peer, block) differs from the IPAM; marks it if so.
  Result<bool> mark_if_stale(const std::string& peer, const net::Cidr& block);
  // Compares the stored NatMapping `name` with the IPAM and writes or removes it if they differ.
  Status check_nat_mapping(const std::string& name);
  // Checks every NatMapping of `peer`: the blocks its endpoints are in and the objects stored.
  Status check_peer(const std::string& peer);
  // The NatMapping group commit's flush: applies the NatMapping of every (peer, block) marked
  // dirty; one whose block holds nothing for the peer is deleted.
  Status write_nat_mappings();
  Status report(const nlohmann::json& object, const std::string& address, const std::string& path,
                bool ready, const std::string& reason, const std::string& message);

  HostCluster host_;
  kube::Informer& mappings_;
  kube::Informer& nat_mappings_;
  // Guarded by the host IPAM's mutex: the (peer, block) NatMappings that must be written, and
  // the metadata.generation of each NatMapping as this manager last wrote it (a NatMapping
  // event at that generation needs no comparison with the IPAM).
  std::set<std::pair<std::string, net::Cidr>> dirty_;
  // What each EndpointMapping holds, and how many hold each (peer, endpoint).
  using Target = std::pair<std::string, std::string>;
  std::map<std::string, Target> held_by_;
  std::map<Target, int> holders_;
  // The live EndpointMappings per target, from the informer's events, so exact from the start:
  // after a restart, a deletion reconciled before another holder's first reconcile must not
  // unmap the endpoint they share. Guarded by live_mu_ (the informer's thread writes it).
  std::map<Target, int> live_;
  std::mutex live_mu_;
  std::map<std::string, std::int64_t> written_generation_;
  util::GroupCommit nat_commit_;
};

}  // namespace fed::federation

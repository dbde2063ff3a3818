#pragma once
// The manager's EndpointMapping controller: MapEndpointIP / UnmapEndpointIP of spec 002 §2.4 as
// API objects on the host. For each EndpointMapping (peer, endpoint as the host sees it) it asks
// the host IPAM for the address the peer must use, persists the IPAM, and — when the endpoint is
// not the host's own pod, e.g. a pod of another member reached hub-and-spoke — writes the
// peer's NatMapping so the host gateway DNATs that address to the endpoint. Deleting the object
// releases the peer's reference (a finalizer makes sure).
//
// Both writes are whole objects that grow with the number of mappings, so they are group
// commits: several workers map concurrently, and each write carries every change made while
// the previous one was in flight. NatMappings are watched too, so one lost or edited is
// written back from the IPAM, and one left for a peer that is gone is removed.

#include <cstdint>
#include <map>
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

inline constexpr std::string_view kEndpointFinalizer = "kubectl-fed.io/endpoint-mapping";

class EndpointMappingReconciler final : public kube::Reconciler {
 public:
  EndpointMappingReconciler(HostCluster host, kube::Informer& mappings,
                            kube::Informer& nat_mappings);

  // Requests are EndpointMapping names, or nat_mapping_request(peer) for a NatMapping event.
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // What the NatMapping informer's events enqueue: a key EndpointMappings (cluster-scoped,
  // so ns is always empty) cannot have.
  static std::vector<kube::Request> nat_mapping_request(const nlohmann::json& nat_mapping);
  // A NatMapping check for every peer in the IPAM, to enqueue at start: a manager that died
  // between the IpamState and the NatMapping write catches up, and one lost while it was down
  // (so no informer event) is written back.
  std::vector<kube::Request> startup_requests();

 private:
  Result<kube::Requeue> map(const nlohmann::json& object);
  Status unmap(const nlohmann::json& object);
  // Compares the peer's stored NatMapping with the IPAM and writes or removes it if they differ.
  Status check_nat_mapping(const std::string& peer);
  // The NatMapping group commit's flush: applies the NatMapping of every peer marked dirty.
  Status write_nat_mappings();
  Status report(const nlohmann::json& object, const std::string& address, const std::string& path,
                bool ready, const std::string& reason, const std::string& message);

  HostCluster host_;
  kube::Informer& mappings_;
  kube::Informer& nat_mappings_;
  // Guarded by the host IPAM's mutex: peers whose NatMapping must be written, and the
  // metadata.generation of each NatMapping as this manager last wrote it (a NatMapping event at
  // that generation needs no comparison with the IPAM).
  std::set<std::string> dirty_peers_;
  std::map<std::string, std::int64_t> written_generation_;
  util::GroupCommit nat_commit_;
};

}  // namespace fed::federation

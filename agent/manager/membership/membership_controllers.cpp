#include "agent/manager/membership/membership_controllers.hpp"

#include <nlohmann/json.hpp>

#include "agent/manager/membership/direct_peering_reconciler.hpp"
#include "agent/manager/membership/endpoint_mapping_reconciler.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::federation {

Membership add_membership_controllers(kube::ControllerManager& manager, const HostCluster& host) {
  kube::Informer& clusters = manager.informer(fedapi::ref(fedapi::kFederatedCluster, ""));
  kube::InformerOptions credential_options;
  credential_options.label_selector = std::string(fedapi::kMemberCredentialLabel);
  kube::Informer& credentials =
      manager.informer(kube::ResourceRef{{"", "v1", "secrets"}, std::string(kNamespace), "", ""},
                       std::move(credential_options));
  kube::Informer& host_peerings = manager.informer(fedapi::ref(fedapi::kPeering, ""));
  kube::Informer& hosts = manager.informer(fedapi::ref(fedapi::kFederationHost, ""));
  auto& membership =
      manager.own(std::make_unique<MembershipReconciler>(host, clusters, &credentials, &hosts));
  // One worker: the host IPAM and the tunnel-address pool are shared by every member.
  kube::Controller& members = manager.add_controller(membership, "membership", 1);
  members.watch(clusters);
  members.watch(host_peerings, [&membership](const nlohmann::json& peering) {
    return membership.cluster_of_peering(peering);
  });
  // A host removed: every member lets go of its tunnel with it. (Only then: the leader rewrites
  // every FederationHost's status every few seconds.)
  members.watch(hosts, [&clusters](const nlohmann::json& federation_host) {
    std::vector<kube::Request> all;
    if (!federation_host["metadata"].contains("deletionTimestamp")) return all;
    for (const auto& fc : clusters.store().list()) {
      all.push_back({"", (*fc)["metadata"].value("name", "")});
    }
    return all;
  });

  kube::Informer& endpoint_mappings = manager.informer(fedapi::ref(fedapi::kEndpointMapping, ""));
  kube::Informer& nat_mappings = manager.informer(fedapi::ref(fedapi::kNatMapping, ""));
  auto& endpoints = manager.own(
      std::make_unique<EndpointMappingReconciler>(host, endpoint_mappings, nat_mappings));
  // The IPAM lock is held only in memory; the API round trips (finalizer, status, the group
  // commits of IpamBlocks and NatMappings) overlap across workers, and the commits coalesce: a
  // batch holds at most one mapping per worker, and a mapping spends most of its time waiting
  // for the commit in flight and then its own, so throughput grows with the workers until the
  // API server is busy (docs/BENCHMARKS.md).
  kube::Controller& endpoint_controller = manager.add_controller(endpoints, "endpoint-mapping", 128);
  endpoint_controller.watch(endpoint_mappings);
  endpoint_controller.watch(nat_mappings, EndpointMappingReconciler::nat_mapping_request);
  manager.add_runnable("endpoint-mapping startup", [&endpoints, &endpoint_controller] {
    for (const auto& request : endpoints.startup_requests()) {
      endpoint_controller.queue().add(request);
    }
    return ok();
  });

  kube::Informer& direct_peerings = manager.informer(fedapi::ref(fedapi::kDirectPeering, ""));
  auto& direct = manager.own(
      std::make_unique<DirectPeeringReconciler>(host.client, direct_peerings, membership));
  // Member IPAMs are locked per pair; one link at a time is plenty.
  manager.add_controller(direct, "direct-peering", 1).watch(direct_peerings);
  return Membership{membership};
}

}  // namespace fed::federation

#pragma once
// The federation's API: one group and version for every kind (manifests/crds/ defines them),
// the plural resource names the REST paths use, and the label prefix. Kinds are cluster-scoped
// except NamespaceOffloading and DeploymentReplication, which live in the namespace they act on.

#include <string>
#include <string_view>

#include "shared/kube/resource_ref.hpp"

namespace fed::fedapi {

inline constexpr std::string_view kGroup = "fed.kubectl-fed.io";
inline constexpr std::string_view kVersion = "v1alpha1";
// kGroup + "/" + kVersion, the apiVersion of every object.
inline constexpr std::string_view kApiVersion = "fed.kubectl-fed.io/v1alpha1";

// Prefix of every label and annotation the federation sets.
inline constexpr std::string_view kLabelPrefix = "kubectl-fed.io/";
// On Peering and NatMapping objects: the peer cluster the object is about.
inline constexpr std::string_view kClusterIdLabel = "kubectl-fed.io/cluster-id";
// On the gateway node: the address peers reach it at, when neither its ExternalIP nor its
// InternalIP is that address (`init/join --gateway-address`; the gateway's agent publishes it).
inline constexpr std::string_view kGatewayAddressAnnotation = "kubectl-fed.io/gateway-address";
// On a member's credential Secret in the host's kubectl-fed-system: the member's cluster id.
inline constexpr std::string_view kMemberCredentialLabel = "kubectl-fed.io/member";

// The spec's "not remapped" value of a network field: the network is used as announced.
inline constexpr std::string_view kNone = "None";

// One kind of the group: its name, plural resource and list kind.
struct Kind {
  std::string_view kind;
  std::string_view resource;
  std::string_view list_kind;
};

inline constexpr Kind kFederatedCluster{"FederatedCluster", "federatedclusters",
                                        "FederatedClusterList"};
inline constexpr Kind kPeering{"Peering", "peerings", "PeeringList"};
inline constexpr Kind kIpamState{"IpamState", "ipamstates", "IpamStateList"};
inline constexpr Kind kIpamBlock{"IpamBlock", "ipamblocks", "IpamBlockList"};
inline constexpr Kind kNatMapping{"NatMapping", "natmappings", "NatMappingList"};
inline constexpr Kind kDirectPeering{"DirectPeering", "directpeerings", "DirectPeeringList"};
inline constexpr Kind kEndpointMapping{"EndpointMapping", "endpointmappings",
                                       "EndpointMappingList"};
inline constexpr Kind kNamespaceOffloading{"NamespaceOffloading", "namespaceoffloadings",
                                           "NamespaceOffloadingList"};
inline constexpr Kind kNamespaceMap{"NamespaceMap", "namespacemaps", "NamespaceMapList"};
inline constexpr Kind kDeploymentReplication{"DeploymentReplication", "deploymentreplications",
                                             "DeploymentReplicationList"};
inline constexpr Kind kFederationHost{"FederationHost", "federationhosts", "FederationHostList"};
inline constexpr Kind kFederationLeader{"FederationLeader", "federationleaders",
                                        "FederationLeaderList"};
inline constexpr Kind kFeatureConfig{"FeatureConfig", "featureconfigs", "FeatureConfigList"};

// group/version/resource of `kind`, for the REST client.
inline kube::GroupVersionResource gvr(const Kind& kind) {
  return {std::string(kGroup), std::string(kVersion), std::string(kind.resource)};
}
// group/version/kind of `kind`.
inline kube::GroupVersionKind gvk(const Kind& kind) {
  return {std::string(kGroup), std::string(kVersion), std::string(kind.kind)};
}
// The address of the object `name` of a cluster-scoped `kind`.
inline kube::ResourceRef ref(const Kind& kind, std::string name) {
  return kube::ResourceRef{gvr(kind), "", std::move(name), ""};
}
// The address of the object `name` of a namespaced `kind` (NamespaceOffloading) in `ns`.
inline kube::ResourceRef ref_in(const Kind& kind, std::string ns, std::string name) {
  return kube::ResourceRef{gvr(kind), std::move(ns), std::move(name), ""};
}

}  // namespace fed::fedapi

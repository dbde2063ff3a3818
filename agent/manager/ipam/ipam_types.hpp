#pragma once
// The IPAM's values: what install takes and returns, a peer's networks in both directions,
// the outcome of Map/UnmapEndpointIP, a peer's NAT mapping set, and the whole state as plain
// values (what is persisted in the IpamState resource and restored after a restart).

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/net/net_types.hpp"

namespace fed::fabric::ipam {

// The default pools free networks come from, tried in this order (spec 002 §1.1).
inline constexpr std::string_view kDefaultPools[] = {"10.0.0.0/8", "192.168.0.0/16",
                                                     "172.16.0.0/12"};

// Install-time input: the cluster's own ranges and the subnets the IPAM must never hand out.
struct InstallSpec {
  net::Cidr pod_cidr;
  net::Cidr service_cidr;
  std::vector<net::Cidr> reserved_subnets;
};

// The cluster's own networks once installed. The ExternalCIDR is chosen by the IPAM.
struct LocalNetworks {
  net::Cidr pod_cidr;
  net::Cidr service_cidr;
  net::Cidr external_cidr;

  friend bool operator==(const LocalNetworks&, const LocalNetworks&) = default;
};

// A peer's networks as it announced them and as they are used here (equal unless remapped).
struct PeerSubnets {
  net::Cidr pod_cidr;
  net::Cidr external_cidr;
  net::Cidr remote_pod_cidr;
  net::Cidr remote_external_cidr;

  // Our remap of the peer's PodCIDR / ExternalCIDR; nullopt is the spec's "None".
  std::optional<net::Cidr> pod_remap() const {
    return remote_pod_cidr == pod_cidr ? std::nullopt : std::optional(remote_pod_cidr);
  }
  std::optional<net::Cidr> external_remap() const {
    return remote_external_cidr == external_cidr ? std::nullopt
                                                 : std::optional(remote_external_cidr);
  }
  friend bool operator==(const PeerSubnets&, const PeerSubnets&) = default;
};

// How a peer sees our networks (it remapped them on conflict); nullopt is "None".
struct LocalRemaps {
  std::optional<net::Cidr> pod_cidr;
  std::optional<net::Cidr> external_cidr;

  friend bool operator==(const LocalRemaps&, const LocalRemaps&) = default;
};

// Which kind of reflection an endpoint gets.
enum class EndpointPath {
  LocalPod,  // in our PodCIDR: mapped 1:1 into the peer's view, no data plane needed
  External,  // anything else: an ExternalCIDR address, DNATed on our gateway
};

struct MappedIp {
  net::Ipv4 ip;  // the address the peer must use for the endpoint
  EndpointPath path = EndpointPath::LocalPod;
  bool nat_changed = false;  // the peer's NatMapping gained an entry
  net::Ipv4 external_ip;     // External: the address in our own ExternalCIDR
};

struct UnmappedIp {
  bool nat_changed = false;              // the peer's NatMapping lost an entry
  bool released = false;                 // the ExternalCIDR address went back to the pool
  std::optional<net::Ipv4> external_ip;  // the address in our ExternalCIDR it was mapped at
};

// What the gateway must DNAT for one peer: newIP (in `external_cidr`) -> endpoint IP.
struct NatMappingSet {
  std::string cluster_id;
  net::Cidr external_cidr;  // our ExternalCIDR as the peer sees it
  std::map<net::Ipv4, net::Ipv4> mappings;

  friend bool operator==(const NatMappingSet&, const NatMappingSet&) = default;
};

// One peer in the persisted state; either half may still be missing during peering.
struct ClusterState {
  std::optional<PeerSubnets> subnets;  // set by get_or_remap_networks
  std::optional<LocalRemaps> local;    // set by set_local_remaps

  friend bool operator==(const ClusterState&, const ClusterState&) = default;
};

// One endpoint reflected through our ExternalCIDR.
struct EndpointState {
  net::Ipv4 external_ip;
  std::vector<std::string> clusters;  // sorted, never empty

  friend bool operator==(const EndpointState&, const EndpointState&) = default;
};

// The whole IPAM as plain values.
struct IpamState {
  std::optional<LocalNetworks> local;  // nullopt before install
  std::vector<net::Cidr> reserved_subnets;
  std::map<std::string, ClusterState> clusters;
  std::map<net::Ipv4, EndpointState> endpoints;

  friend bool operator==(const IpamState&, const IpamState&) = default;
};

}  // namespace fed::fabric::ipam

#pragma once
// Ipam: the manager's address management (spec 002 §1.3, §2.5). It reserves our PodCIDR and
// ServiceCIDR, picks our ExternalCIDR, gives every peer's PodCIDR and ExternalCIDR a network
// here (as announced, or remapped to a free one of the same length on conflict), records how
// each peer sees our networks, and answers Map/UnmapEndpointIP. Pure logic, no I/O: the caller
// persists snapshot() in the IpamState resource and writes nat_mapping() to NatMapping objects.
// Thread-safe: one mutex around the state, for the manager's reconcile workers.

#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "agent/manager/ipam/ipam_data.hpp"
#include "agent/manager/ipam/ipam_types.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric::ipam {

class Ipam final {
 public:
  Ipam() = default;
  Ipam(const Ipam&) = delete;
  Ipam& operator=(const Ipam&) = delete;

  // Reserves the PodCIDR, ServiceCIDR and reserved subnets and, the first time, chooses the
  // ExternalCIDR: the first free network of the PodCIDR's length in 10.0.0.0/8,
  // 192.168.0.0/16, 172.16.0.0/12. Again later (a restart): the same PodCIDR and ServiceCIDR
  // (else Invalid) and the reserved subnets replaced. Invalid on overlaps; nothing changes
  // on failure.
  Result<LocalNetworks> install(const InstallSpec& spec);
  // Our networks; nullopt before install.
  std::optional<LocalNetworks> local_networks() const;

  // GetSubnetsPerCluster: the networks used here for the peer's announced PodCIDR and
  // ExternalCIDR. Each is kept when it overlaps nothing taken (our ranges, reserved subnets,
  // other peers' networks), else remapped to a free network of the same length from the pools;
  // if the second cannot be placed the first is given back. Idempotent per cluster id; new
  // ranges for a known cluster are Invalid (remove it first). No free network: Unavailable.
  Result<PeerSubnets> get_or_remap_networks(std::string_view cluster_id, const net::Cidr& pod_cidr,
                                            const net::Cidr& external_cidr);
  // AddLocalSubnetsPerCluster: how the peer sees our PodCIDR and ExternalCIDR (its remaps, or
  // nullopt for "None"). Not reserved here: they are the peer's address space. True when the
  // view changed, which changes every newIP of that peer's NatMapping.
  Result<bool> set_local_remaps(std::string_view cluster_id, const LocalRemaps& remaps);
  // The peer's state; NotFound when the cluster is unknown.
  Result<ClusterState> cluster(std::string_view cluster_id) const;
  // RemoveClusterConfig: frees the peer's networks and its endpoint mappings (addresses no
  // other peer uses go back to the pool). False when the cluster was unknown.
  Result<bool> remove_cluster(std::string_view cluster_id);

  // MapEndpointIP: the address `cluster_id` must use for `endpoint`. An endpoint of our PodCIDR
  // maps 1:1 into the peer's view of it. Any other gets an ExternalCIDR address (one per
  // endpoint, shared by every peer it is reflected to), translated into the peer's view of our
  // ExternalCIDR. NotFound for an unknown cluster; Unavailable while its networking is
  // incomplete or when the ExternalCIDR is full.
  Result<MappedIp> map_endpoint_ip(std::string_view cluster_id, net::Ipv4 endpoint);
  Result<MappedIp> map_endpoint_ip(std::string_view cluster_id, std::string_view endpoint);
  // UnmapEndpointIP: drops the peer's reference; the address is freed with the last one.
  // A no-op for endpoints of our PodCIDR, unknown or already unmapped ones.
  Result<UnmappedIp> unmap_endpoint_ip(std::string_view cluster_id, net::Ipv4 endpoint);
  Result<UnmappedIp> unmap_endpoint_ip(std::string_view cluster_id, std::string_view endpoint);
  // The peer's NatMapping: newIP -> endpoint IP for every endpoint reflected to it through the
  // ExternalCIDR. Errors as map_endpoint_ip's.
  Result<NatMappingSet> nat_mapping(std::string_view cluster_id) const;
  // The part of it whose addresses (in our own ExternalCIDR) are in `addresses`: one persisted
  // block. O(log n + block).
  Result<NatMappingSet> nat_mapping(std::string_view cluster_id, const net::Cidr& addresses) const;
  // The endpoints holding an address of `addresses`, by endpoint IP. O(log n + block).
  std::map<net::Ipv4, EndpointState> endpoints_in(const net::Cidr& addresses) const;
  // The ExternalCIDR addresses whose endpoint or peers changed since the last call (mapped,
  // unmapped, released, dropped with a peer): what the persister must write again.
  std::vector<net::Ipv4> take_changed_addresses();

  // The whole state as plain values, for persisting; with `endpoints` false, the networks only.
  IpamState snapshot(bool endpoints = true) const;
  // Replaces the state with `state` after checking it (no overlapping networks, no address
  // held twice, mappings only for known peers). Invalid and unchanged on failure.
  Status restore(const IpamState& state);

 private:
  mutable std::mutex mu_;
  detail::IpamData data_;
};

}  // namespace fed::fabric::ipam

#pragma once
// The IPAM's mutable state and the operations on it, without locking: Ipam (ipam.hpp) holds
// one IpamData under its mutex and calls these. Each operation either succeeds or leaves the
// data as it found it.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/manager/ipam/address_pool.hpp"
#include "agent/manager/ipam/ipam_types.hpp"
#include "agent/manager/ipam/prefix_map.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric::ipam::detail {

struct PeerRecord {
  std::optional<PeerSubnets> subnets;
  std::optional<LocalRemaps> local;
  std::set<net::Ipv4> endpoints;  // endpoint IPs reflected to this peer through the ExternalCIDR
};

struct EndpointRecord {
  net::Ipv4 external_ip;
  std::vector<std::string> clusters;  // sorted; the reference count is its size
};

struct IpamData {
  std::optional<LocalNetworks> local;
  std::vector<net::Cidr> reserved;
  PrefixMap used;  // local ranges, reserved subnets and peers' networks as used here
  std::optional<AddressPool> external_pool;
  std::map<std::string, PeerRecord, std::less<>> peers;
  std::unordered_map<std::uint32_t, EndpointRecord> endpoints;  // by endpoint IP
  std::map<std::uint32_t, std::uint32_t> by_address;  // ExternalCIDR address -> endpoint IP
  // ExternalCIDR addresses whose endpoint or peers changed since the caller last took them:
  // what a persister writes, so a write costs O(change) (Ipam::take_changed_addresses).
  std::set<std::uint32_t> changed;
};

// Install (ipam_networks.cpp).
Result<LocalNetworks> install(IpamData& d, const InstallSpec& spec);
// Peer networks (ipam_networks.cpp).
Result<PeerSubnets> get_or_remap_networks(IpamData& d, std::string_view cluster_id,
                                          const net::Cidr& pod_cidr,
                                          const net::Cidr& external_cidr);
Result<bool> set_local_remaps(IpamData& d, std::string_view cluster_id, const LocalRemaps& remaps);
Result<bool> remove_cluster(IpamData& d, std::string_view cluster_id);
// A free network of `length` bits from the default pools, in order.
Result<net::Cidr> network_from_pools(const PrefixMap& used, std::uint8_t length,
                                     std::string_view purpose);

// Endpoints (ipam_endpoints.cpp).
Result<MappedIp> map_endpoint_ip(IpamData& d, std::string_view cluster_id, net::Ipv4 endpoint);
Result<UnmappedIp> unmap_endpoint_ip(IpamData& d, std::string_view cluster_id, net::Ipv4 endpoint);
// The peer's mappings whose ExternalCIDR address is in `addresses` (nullopt: every one).
Result<NatMappingSet> nat_mapping(const IpamData& d, std::string_view cluster_id,
                                  const std::optional<net::Cidr>& addresses);
// The endpoints whose ExternalCIDR address is in `addresses`, by endpoint IP.
std::map<net::Ipv4, EndpointState> endpoints_in(const IpamData& d, const net::Cidr& addresses);
// Drops `cluster_id` from every endpoint it holds, freeing addresses nobody uses any more.
void release_cluster_endpoints(IpamData& d, PeerRecord& peer, std::string_view cluster_id);

// Persistence (ipam_snapshot.cpp).
// With `endpoints` false, the networks only.
IpamState snapshot(const IpamData& d, bool endpoints = true);
Result<IpamData> restore(const IpamState& state);

}  // namespace fed::fabric::ipam::detail

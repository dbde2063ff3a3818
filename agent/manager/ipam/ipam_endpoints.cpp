// MapEndpointIP / UnmapEndpointIP and the per-peer NAT mappings (spec 002 §2.5, Algorithms 3
// and 4). Every step is a hash or ordered-map operation: O(log n) per request.
#include "agent/manager/ipam/ipam_data.hpp"
#include "shared/net/net_types.hpp"

#include <algorithm>

#include "agent/manager/ipam/validate.hpp"

namespace fed::fabric::ipam::detail {
namespace {

// The peer `cluster_id` with both halves of its networking known, or why not.
Result<const PeerRecord*> configured_peer(const IpamData& d, std::string_view cluster_id) {
  FED_TRY(check_cluster_id(cluster_id));
  if (!d.local) return fail(ErrorCode::Internal, "IPAM used before install()");
  auto it = d.peers.find(cluster_id);
  if (it == d.peers.end()) {
    return fail(ErrorCode::NotFound, "cluster " + std::string(cluster_id) +
                                         " has no peering networks; peer it (kubectl fed join) "
                                         "before reflecting endpoints to it");
  }
  const PeerRecord& peer = it->second;
  if (!peer.subnets || !peer.local) {
    return fail(ErrorCode::Unavailable,
                "networking with cluster " + std::string(cluster_id) + " is not configured yet: " +
                    (peer.subnets ? "waiting for the peer to report how it sees our networks"
                                  : "its PodCIDR and ExternalCIDR have not been processed"));
  }
  return &peer;
}

// Inserts `id` into the sorted `ids`; false when it was there.
bool insert_sorted(std::vector<std::string>& ids, std::string_view id) {
  auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it != ids.end() && *it == id) return false;
  ids.insert(it, std::string(id));
  return true;
}

// Erases `id` from the sorted `ids`; false when it was not there.
bool erase_sorted(std::vector<std::string>& ids, std::string_view id) {
  auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id) return false;
  ids.erase(it);
  return true;
}

// Forgets `endpoint` for `cluster_id`; frees its address when no peer uses it any more.
UnmappedIp drop(IpamData& d, std::string_view cluster_id, net::Ipv4 endpoint) {
  UnmappedIp out;
  auto it = d.endpoints.find(endpoint.value);
  if (it == d.endpoints.end() || !erase_sorted(it->second.clusters, cluster_id)) return out;
  out.nat_changed = true;
  out.external_ip = it->second.external_ip;
  d.changed.insert(it->second.external_ip.value);
  if (it->second.clusters.empty()) {
    d.external_pool->release(it->second.external_ip);
    d.by_address.erase(it->second.external_ip.value);
    d.endpoints.erase(it);
    out.released = true;
  }
  return out;
}

}  // namespace

Result<MappedIp> map_endpoint_ip(IpamData& d, std::string_view cluster_id, net::Ipv4 endpoint) {
  FED_ASSIGN_OR_RETURN(const PeerRecord* found, configured_peer(d, cluster_id));
  const LocalNetworks& local = *d.local;
  if (local.pod_cidr.contains(endpoint)) {
    return MappedIp{net::map_ip_to_network(endpoint, found->local->pod_cidr),
                    EndpointPath::LocalPod, false, net::Ipv4{}};
  }
  if (local.external_cidr.contains(endpoint)) {
    return fail(ErrorCode::Invalid,
                "endpoint " + endpoint.str() + " is inside the local ExternalCIDR " +
                    local.external_cidr.str() +
                    "; reflect the endpoint it stands for, not its ExternalCIDR address");
  }
  auto it = d.endpoints.find(endpoint.value);
  if (it == d.endpoints.end()) {
    auto external = d.external_pool->allocate();
    if (!external) {
      return fail(ErrorCode::Unavailable,
                  "the ExternalCIDR " + local.external_cidr.str() + " has no free address (" +
                      std::to_string(d.external_pool->used()) +
                      " endpoints hold one); unmap unused endpoints, or install with a larger "
                      "PodCIDR, which sizes the ExternalCIDR");
    }
    it = d.endpoints.emplace(endpoint.value, EndpointRecord{*external, {}}).first;
    d.by_address.emplace(external->value, endpoint.value);
  }
  PeerRecord& peer = d.peers.find(cluster_id)->second;
  const bool added = insert_sorted(it->second.clusters, cluster_id);
  if (added) {
    peer.endpoints.insert(endpoint);
    d.changed.insert(it->second.external_ip.value);
  }
  return MappedIp{net::map_ip_to_network(it->second.external_ip, peer.local->external_cidr),
                  EndpointPath::External, added, it->second.external_ip};
}

Result<UnmappedIp> unmap_endpoint_ip(IpamData& d, std::string_view cluster_id, net::Ipv4 endpoint) {
  FED_TRY(check_cluster_id(cluster_id));
  // Endpoints of our PodCIDR and endpoints already freed hold nothing: a no-op.
  UnmappedIp out = drop(d, cluster_id, endpoint);
  if (out.nat_changed) {
    if (auto peer = d.peers.find(cluster_id); peer != d.peers.end()) {
      peer->second.endpoints.erase(endpoint);
    }
  }
  return out;
}

void release_cluster_endpoints(IpamData& d, PeerRecord& peer, std::string_view cluster_id) {
  for (const auto& endpoint : peer.endpoints) drop(d, cluster_id, endpoint);
  peer.endpoints.clear();
}

Result<NatMappingSet> nat_mapping(const IpamData& d, std::string_view cluster_id,
                                  const std::optional<net::Cidr>& addresses) {
  FED_ASSIGN_OR_RETURN(const PeerRecord* peer, configured_peer(d, cluster_id));
  NatMappingSet set;
  set.cluster_id = std::string(cluster_id);
  set.external_cidr = peer->local->external_cidr.value_or(d.local->external_cidr);
  auto add = [&](net::Ipv4 endpoint, net::Ipv4 address) {
    set.mappings.emplace(net::map_ip_to_network(address, peer->local->external_cidr), endpoint);
  };
  if (!addresses) {
    for (const auto& endpoint : peer->endpoints) {
      add(endpoint, d.endpoints.at(endpoint.value).external_ip);
    }
    return set;
  }
  // One block: its addresses in order, the peer's among them.
  for (auto it = d.by_address.lower_bound(addresses->network.value);
       it != d.by_address.end() && it->first <= addresses->last().value; ++it) {
    const auto& clusters = d.endpoints.at(it->second).clusters;
    if (std::binary_search(clusters.begin(), clusters.end(), cluster_id)) {
      add(net::Ipv4{it->second}, net::Ipv4{it->first});
    }
  }
  return set;
}

std::map<net::Ipv4, EndpointState> endpoints_in(const IpamData& d, const net::Cidr& addresses) {
  std::map<net::Ipv4, EndpointState> out;
  for (auto it = d.by_address.lower_bound(addresses.network.value);
       it != d.by_address.end() && it->first <= addresses.last().value; ++it) {
    const auto& record = d.endpoints.at(it->second);
    out.emplace(net::Ipv4{it->second}, EndpointState{record.external_ip, record.clusters});
  }
  return out;
}

}  // namespace fed::fabric::ipam::detail

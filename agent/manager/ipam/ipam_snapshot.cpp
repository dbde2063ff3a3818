// The IPAM as plain values and back. Restoring replays every reservation through the same
// checks as live operations, so a state that would double-allocate a network or an address is
// rejected instead of loaded.
#include "agent/manager/ipam/ipam_data.hpp"

#include <algorithm>

#include "agent/manager/ipam/validate.hpp"

namespace fed::fabric::ipam::detail {
namespace {

Unexpected invalid_state(std::string message) {
  return fail(ErrorCode::Invalid, "IPAM state: " + std::move(message));
}

// Takes `cidr` for `owner`, or says what it clashes with.
Status take(IpamData& d, const net::Cidr& cidr, Owner owner, const std::string& cluster_id,
            const std::string& field) {
  FED_TRY(check_network(field, cidr));
  if (const auto* taken = d.used.find_overlap(cidr)) {
    return invalid_state(field + ": " + cidr.str() + " overlaps " + describe(*taken) +
                         "; the saved state is inconsistent (edit or delete the IpamState object)");
  }
  d.used.insert({cidr, owner, cluster_id});
  return ok();
}

Status restore_local(IpamData& d, const IpamState& state) {
  if (!state.local) {
    if (!state.reserved_subnets.empty() || !state.clusters.empty() || !state.endpoints.empty()) {
      return invalid_state(
          "podCIDR, serviceCIDR and externalCIDR are missing but peers, mappings or "
          "reserved subnets are present");
    }
    return ok();
  }
  const auto& local = *state.local;
  FED_TRY(take(d, local.pod_cidr, Owner::LocalPod, "", "podCIDR"));
  FED_TRY(take(d, local.service_cidr, Owner::LocalService, "", "serviceCIDR"));
  FED_TRY(take(d, local.external_cidr, Owner::LocalExternal, "", "externalCIDR"));
  if (local.external_cidr.length != local.pod_cidr.length) {
    return invalid_state("externalCIDR: " + local.external_cidr.str() +
                         " must have the length of " + "the PodCIDR " + local.pod_cidr.str());
  }
  for (std::size_t i = 0; i < state.reserved_subnets.size(); ++i) {
    FED_TRY(take(d, state.reserved_subnets[i], Owner::Reserved, "",
                 "reservedSubnets[" + std::to_string(i) + "]"));
  }
  d.reserved = state.reserved_subnets;
  d.external_pool.emplace(local.external_cidr);
  d.local = local;
  return ok();
}

Status restore_cluster(IpamData& d, const std::string& id, const ClusterState& cs) {
  auto valid_id = check_cluster_id(id);
  if (!valid_id) return invalid_state("clusterSubnets: " + valid_id.error().message());
  const std::string path = "clusterSubnets." + id;
  PeerRecord peer;
  if (const auto& s = cs.subnets) {
    FED_TRY(check_network(path + ".podCIDR", s->pod_cidr));
    FED_TRY(check_network(path + ".externalCIDR", s->external_cidr));
    if (s->remote_pod_cidr.length != s->pod_cidr.length ||
        s->remote_external_cidr.length != s->external_cidr.length) {
      return invalid_state(path +
                           ": a remapped network must have the length of the one it replaces");
    }
    FED_TRY(take(d, s->remote_pod_cidr, Owner::PeerPod, id, path + ".remotePodCIDR"));
    FED_TRY(
        take(d, s->remote_external_cidr, Owner::PeerExternal, id, path + ".remoteExternalCIDR"));
    peer.subnets = s;
  }
  if (const auto& l = cs.local) {
    const auto& ours = *d.local;
    if ((l->pod_cidr && l->pod_cidr->length != ours.pod_cidr.length) ||
        (l->external_cidr && l->external_cidr->length != ours.external_cidr.length)) {
      return invalid_state(path + ": the peer's view of our networks must keep their lengths");
    }
    peer.local = l;
  }
  d.peers.emplace(id, std::move(peer));
  return ok();
}

Status restore_endpoint(IpamData& d, net::Ipv4 endpoint, const EndpointState& es) {
  const std::string path = "endpointMappings." + endpoint.str();
  if (d.local->pod_cidr.contains(endpoint) || d.local->external_cidr.contains(endpoint)) {
    return invalid_state(path + ": endpoints of the local PodCIDR or ExternalCIDR hold no address");
  }
  if (es.clusters.empty()) return invalid_state(path + ".clusters: must name at least one peer");
  if (!std::is_sorted(es.clusters.begin(), es.clusters.end()) ||
      std::adjacent_find(es.clusters.begin(), es.clusters.end()) != es.clusters.end()) {
    return invalid_state(path + ".clusters: must be sorted and without duplicates");
  }
  if (!d.external_pool->reserve(es.external_ip)) {
    return invalid_state(
        path + ".ip: " + es.external_ip.str() +
        (d.external_pool->usable(es.external_ip)
             ? " is already held by another endpoint (a double allocation)"
             : " is not a usable address of the ExternalCIDR " + d.local->external_cidr.str()));
  }
  for (const auto& id : es.clusters) {
    auto peer = d.peers.find(id);
    if (peer == d.peers.end()) {
      return invalid_state(path + ".clusters: " + id + " is not in clusterSubnets");
    }
    peer->second.endpoints.insert(endpoint);
  }
  d.endpoints.emplace(endpoint.value, EndpointRecord{es.external_ip, es.clusters});
  d.by_address.emplace(es.external_ip.value, endpoint.value);
  return ok();
}

}  // namespace

IpamState snapshot(const IpamData& d, bool endpoints) {
  IpamState state;
  state.local = d.local;
  state.reserved_subnets = d.reserved;
  for (const auto& [id, peer] : d.peers) state.clusters[id] = {peer.subnets, peer.local};
  if (!endpoints) return state;
  for (const auto& [ip, record] : d.endpoints) {
    state.endpoints.emplace(net::Ipv4{ip}, EndpointState{record.external_ip, record.clusters});
  }
  return state;
}

Result<IpamData> restore(const IpamState& state) {
  IpamData d;
  FED_TRY(restore_local(d, state));
  for (const auto& [id, cs] : state.clusters) FED_TRY(restore_cluster(d, id, cs));
  for (const auto& [endpoint, es] : state.endpoints) FED_TRY(restore_endpoint(d, endpoint, es));
  return d;
}

}  // namespace fed::fabric::ipam::detail

// Install-time reservations and the per-peer networks (spec 002 §1.3).
#include "agent/manager/ipam/ipam_data.hpp"

#include <algorithm>

#include "agent/manager/ipam/validate.hpp"
#include "shared/raii/cleanup.hpp"

namespace fed::fabric::ipam::detail {
namespace {

Unexpected invalid(std::string message) {
  return fail(ErrorCode::Invalid, std::move(message));
}

std::string indexed(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

// Checks the reserved subnets on their own: canonical and pairwise disjoint.
Status check_reserved(const std::vector<net::Cidr>& reserved) {
  for (std::size_t i = 0; i < reserved.size(); ++i) {
    FED_TRY(check_network(indexed("reservedSubnets", i), reserved[i]));
    for (std::size_t j = 0; j < i; ++j) {
      if (reserved[i].overlaps(reserved[j])) {
        return invalid(indexed("reservedSubnets", i) + ": " + reserved[i].str() + " overlaps " +
                       indexed("reservedSubnets", j) + " " + reserved[j].str() +
                       "; list each range once, or merge them into one subnet");
      }
    }
  }
  return ok();
}

// Takes `used.cidr` in `map`, or says which field clashes with what.
Status take(PrefixMap& map, UsedNetwork used, std::string_view field) {
  if (const auto* taken = map.find_overlap(used.cidr)) {
    return invalid(std::string(field) + ": " + used.cidr.str() + " overlaps " + describe(*taken) +
                   "; choose a range outside it");
  }
  map.insert(std::move(used));
  return ok();
}

// Everything install checks and changes, applied to a copy so a failure changes nothing.
Result<LocalNetworks> install_into(IpamData& d, const InstallSpec& spec) {
  FED_TRY(check_network("podCIDR", spec.pod_cidr));
  FED_TRY(check_network("serviceCIDR", spec.service_cidr));
  FED_TRY(check_reserved(spec.reserved_subnets));
  if (d.local) {
    if (d.local->pod_cidr != spec.pod_cidr) {
      return invalid("podCIDR: the PodCIDR is already " + d.local->pod_cidr.str() +
                     " and cannot change to " + spec.pod_cidr.str() +
                     "; peers use it (uninstall the federation to change it)");
    }
    if (d.local->service_cidr != spec.service_cidr) {
      return invalid("serviceCIDR: the ServiceCIDR is already " + d.local->service_cidr.str() +
                     " and cannot change to " + spec.service_cidr.str() +
                     " (uninstall the federation to change it)");
    }
    for (const auto& old : d.reserved) d.used.erase(old);
  } else {
    FED_TRY(take(d.used, {spec.pod_cidr, Owner::LocalPod, ""}, "podCIDR"));
    FED_TRY(take(d.used, {spec.service_cidr, Owner::LocalService, ""}, "serviceCIDR"));
  }
  for (std::size_t i = 0; i < spec.reserved_subnets.size(); ++i) {
    FED_TRY(take(d.used, {spec.reserved_subnets[i], Owner::Reserved, ""},
                 indexed("reservedSubnets", i)));
  }
  d.reserved = spec.reserved_subnets;
  if (!d.local) {
    auto external = network_from_pools(d.used, spec.pod_cidr.length, "the local ExternalCIDR");
    if (!external) {
      return invalid(external.error().message() +
                     "; reserve fewer subnets or choose a longer PodCIDR prefix");
    }
    d.used.insert({*external, Owner::LocalExternal, ""});
    d.external_pool.emplace(*external);
    d.local = LocalNetworks{spec.pod_cidr, spec.service_cidr, *external};
  }
  return *d.local;
}

}  // namespace

Result<net::Cidr> network_from_pools(const PrefixMap& used, std::uint8_t length,
                                     std::string_view purpose) {
  std::string pools;
  bool fits = false;
  for (auto text : kDefaultPools) {
    auto pool = *net::Cidr::parse(text);
    pools += (pools.empty() ? "" : ", ") + std::string(text);
    if (length < pool.length) continue;
    fits = true;
    if (auto free = used.first_free(pool, length)) return *free;
  }
  const std::string what = "/" + std::to_string(length) + " network for " + std::string(purpose);
  if (!fits) return invalid("no pool can hold a " + what + " (pools: " + pools + ")");
  return fail(ErrorCode::Unavailable, "no free " + what + " is left in the pools (" + pools + ")");
}

namespace {

// A free network for a peer's `purpose`, with the fix in the message.
Result<net::Cidr> remap_from_pools(const PrefixMap& used, std::uint8_t length,
                                   const std::string& purpose) {
  auto net = network_from_pools(used, length, purpose);
  if (!net) {
    return Error(net.error().code(),
                 net.error().message() + "; remove a peering or reserve fewer subnets");
  }
  return net;
}

}  // namespace

Result<LocalNetworks> install(IpamData& d, const InstallSpec& spec) {
  IpamData next = d;  // install is rare: a copy makes it all-or-nothing
  FED_ASSIGN_OR_RETURN(auto local, install_into(next, spec));
  d = std::move(next);
  return local;
}

Result<PeerSubnets> get_or_remap_networks(IpamData& d, std::string_view cluster_id,
                                          const net::Cidr& pod_cidr,
                                          const net::Cidr& external_cidr) {
  FED_TRY(check_cluster_id(cluster_id));
  const std::string who = "peer " + std::string(cluster_id);
  FED_TRY(check_network(who + " podCIDR", pod_cidr));
  FED_TRY(check_network(who + " externalCIDR", external_cidr));
  if (!d.local) return fail(ErrorCode::Internal, "IPAM used before install()");
  if (pod_cidr.overlaps(external_cidr)) {
    return invalid(who + " announced podCIDR " + pod_cidr.str() + " and externalCIDR " +
                   external_cidr.str() + ", which overlap; a cluster's ranges must be disjoint");
  }
  auto it = d.peers.find(cluster_id);
  if (it != d.peers.end() && it->second.subnets) {
    const auto& s = *it->second.subnets;
    if (s.pod_cidr == pod_cidr && s.external_cidr == external_cidr) return s;  // idempotent
    return invalid(who + " is peered with podCIDR " + s.pod_cidr.str() + " and externalCIDR " +
                   s.external_cidr.str() + ", not " + pod_cidr.str() + " and " +
                   external_cidr.str() + "; remove the peering before announcing new ranges");
  }
  // Networks free as announced are kept first, so a remap never takes a range the peer's
  // other network needs.
  const bool pod_free = d.used.find_overlap(pod_cidr) == nullptr;
  const bool external_free = d.used.find_overlap(external_cidr) == nullptr;
  const std::string id(cluster_id);
  std::vector<net::Cidr> taken;
  Cleanup rollback([&] {
    for (const auto& c : taken) d.used.erase(c);
  });
  if (pod_free) {
    d.used.insert({pod_cidr, Owner::PeerPod, id});
    taken.push_back(pod_cidr);
  }
  if (external_free) {
    d.used.insert({external_cidr, Owner::PeerExternal, id});
    taken.push_back(external_cidr);
  }
  PeerSubnets s{pod_cidr, external_cidr, pod_cidr, external_cidr};
  if (!pod_free) {
    FED_ASSIGN_OR_RETURN(s.remote_pod_cidr,
                         remap_from_pools(d.used, pod_cidr.length, who + "'s PodCIDR"));
    d.used.insert({s.remote_pod_cidr, Owner::PeerPod, id});
    taken.push_back(s.remote_pod_cidr);
  }
  if (!external_free) {
    FED_ASSIGN_OR_RETURN(s.remote_external_cidr,
                         remap_from_pools(d.used, external_cidr.length, who + "'s ExternalCIDR"));
    d.used.insert({s.remote_external_cidr, Owner::PeerExternal, id});
    taken.push_back(s.remote_external_cidr);
  }
  rollback.cancel();
  d.peers[id].subnets = s;
  return s;
}

Result<bool> set_local_remaps(IpamData& d, std::string_view cluster_id, const LocalRemaps& remaps) {
  FED_TRY(check_cluster_id(cluster_id));
  if (!d.local) return fail(ErrorCode::Internal, "IPAM used before install()");
  const std::string who = "peer " + std::string(cluster_id);
  // A remap keeps the host part of every address, so it must have the length of our range.
  auto check = [&](const std::optional<net::Cidr>& remap, const net::Cidr& ours,
                   const char* field) -> Status {
    if (!remap) return ok();
    FED_TRY(check_network(who + " " + field, *remap));
    if (remap->length != ours.length) {
      return invalid(who + " " + field + ": " + remap->str() + " must be a /" +
                     std::to_string(ours.length) + " like our " + ours.str() +
                     " (a remap keeps the host part of every address)");
    }
    return ok();
  };
  FED_TRY(check(remaps.pod_cidr, d.local->pod_cidr, "localRemappedPodCIDR"));
  FED_TRY(check(remaps.external_cidr, d.local->external_cidr, "localRemappedExternalCIDR"));
  auto& peer = d.peers[std::string(cluster_id)];
  const bool changed = peer.local != remaps;
  peer.local = remaps;
  return changed;
}

Result<bool> remove_cluster(IpamData& d, std::string_view cluster_id) {
  FED_TRY(check_cluster_id(cluster_id));
  auto it = d.peers.find(cluster_id);
  if (it == d.peers.end()) return false;
  release_cluster_endpoints(d, it->second, cluster_id);
  if (const auto& s = it->second.subnets) {
    d.used.erase(s->remote_pod_cidr);
    d.used.erase(s->remote_external_cidr);
  }
  d.peers.erase(it);
  return true;
}

}  // namespace fed::fabric::ipam::detail

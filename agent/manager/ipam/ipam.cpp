#include "agent/manager/ipam/ipam.hpp"

#include <utility>

#include "agent/manager/ipam/validate.hpp"

namespace fed::fabric::ipam {

Result<LocalNetworks> Ipam::install(const InstallSpec& spec) {
  std::lock_guard lock(mu_);
  return detail::install(data_, spec);
}

std::optional<LocalNetworks> Ipam::local_networks() const {
  std::lock_guard lock(mu_);
  return data_.local;
}

Result<PeerSubnets> Ipam::get_or_remap_networks(std::string_view cluster_id,
                                                const net::Cidr& pod_cidr,
                                                const net::Cidr& external_cidr) {
  std::lock_guard lock(mu_);
  return detail::get_or_remap_networks(data_, cluster_id, pod_cidr, external_cidr);
}

Result<bool> Ipam::set_local_remaps(std::string_view cluster_id, const LocalRemaps& remaps) {
  std::lock_guard lock(mu_);
  return detail::set_local_remaps(data_, cluster_id, remaps);
}

Result<ClusterState> Ipam::cluster(std::string_view cluster_id) const {
  std::lock_guard lock(mu_);
  auto it = data_.peers.find(cluster_id);
  if (it == data_.peers.end()) {
    return fail(ErrorCode::NotFound, "cluster " + std::string(cluster_id) + " is not peered");
  }
  return ClusterState{it->second.subnets, it->second.local};
}

Result<bool> Ipam::remove_cluster(std::string_view cluster_id) {
  std::lock_guard lock(mu_);
  return detail::remove_cluster(data_, cluster_id);
}

Result<MappedIp> Ipam::map_endpoint_ip(std::string_view cluster_id, net::Ipv4 endpoint) {
  std::lock_guard lock(mu_);
  return detail::map_endpoint_ip(data_, cluster_id, endpoint);
}

Result<MappedIp> Ipam::map_endpoint_ip(std::string_view cluster_id, std::string_view endpoint) {
  FED_ASSIGN_OR_RETURN(auto ip, parse_ip("endpoint IP", endpoint));
  return map_endpoint_ip(cluster_id, ip);
}

Result<UnmappedIp> Ipam::unmap_endpoint_ip(std::string_view cluster_id, net::Ipv4 endpoint) {
  std::lock_guard lock(mu_);
  return detail::unmap_endpoint_ip(data_, cluster_id, endpoint);
}

Result<UnmappedIp> Ipam::unmap_endpoint_ip(std::string_view cluster_id, std::string_view endpoint) {
  FED_ASSIGN_OR_RETURN(auto ip, parse_ip("endpoint IP", endpoint));
  return unmap_endpoint_ip(cluster_id, ip);
}

Result<NatMappingSet> Ipam::nat_mapping(std::string_view cluster_id) const {
  std::lock_guard lock(mu_);
  return detail::nat_mapping(data_, cluster_id, std::nullopt);
}

Result<NatMappingSet> Ipam::nat_mapping(std::string_view cluster_id,
                                        const net::Cidr& addresses) const {
  std::lock_guard lock(mu_);
  return detail::nat_mapping(data_, cluster_id, addresses);
}

std::map<net::Ipv4, EndpointState> Ipam::endpoints_in(const net::Cidr& addresses) const {
  std::lock_guard lock(mu_);
  return detail::endpoints_in(data_, addresses);
}

std::vector<net::Ipv4> Ipam::take_changed_addresses() {
  std::lock_guard lock(mu_);
  std::vector<net::Ipv4> out;
  for (auto a : std::exchange(data_.changed, {})) out.push_back(net::Ipv4{a});
  return out;
}

IpamState Ipam::snapshot(bool endpoints) const {
  std::lock_guard lock(mu_);
  return detail::snapshot(data_, endpoints);
}

Status Ipam::restore(const IpamState& state) {
  auto restored = detail::restore(state);  // built outside the lock: the check is the slow part
  if (!restored) return std::move(restored).error();
  std::lock_guard lock(mu_);
  data_ = std::move(*restored);
  return ok();
}

}  // namespace fed::fabric::ipam

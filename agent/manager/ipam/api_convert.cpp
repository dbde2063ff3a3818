#include "agent/manager/ipam/api_convert.hpp"

#include "agent/manager/ipam/validate.hpp"
#include "shared/fedapi/json_fields.hpp"

namespace fed::fabric::ipam {
namespace {

Result<std::optional<PeerSubnets>> subnets_from(const std::string& path,
                                                const fedapi::IpamClusterSubnets& s) {
  if (s.pod_cidr.empty() && s.external_cidr.empty()) return std::optional<PeerSubnets>();
  PeerSubnets out;
  FED_ASSIGN_OR_RETURN(out.pod_cidr, parse_cidr(path + ".podCIDR", s.pod_cidr));
  FED_ASSIGN_OR_RETURN(out.external_cidr, parse_cidr(path + ".externalCIDR", s.external_cidr));
  FED_ASSIGN_OR_RETURN(auto pod_remap,
                       parse_optional_cidr(path + ".remotePodCIDR", s.remote_pod_cidr));
  FED_ASSIGN_OR_RETURN(auto external_remap,
                       parse_optional_cidr(path + ".remoteExternalCIDR", s.remote_external_cidr));
  out.remote_pod_cidr = pod_remap.value_or(out.pod_cidr);
  out.remote_external_cidr = external_remap.value_or(out.external_cidr);
  return std::optional<PeerSubnets>(out);
}

Result<std::optional<LocalRemaps>> local_from(const std::string& path,
                                              const fedapi::IpamClusterSubnets& s) {
  if (s.local_remapped_pod_cidr.empty() && s.local_remapped_external_cidr.empty()) {
    return std::optional<LocalRemaps>();
  }
  if (s.local_remapped_pod_cidr.empty() || s.local_remapped_external_cidr.empty()) {
    return fail(ErrorCode::Invalid, path +
                                        ": localRemappedPodCIDR and localRemappedExternalCIDR "
                                        "are set together (a CIDR or None each)");
  }
  LocalRemaps out;
  FED_ASSIGN_OR_RETURN(
      out.pod_cidr, parse_optional_cidr(path + ".localRemappedPodCIDR", s.local_remapped_pod_cidr));
  FED_ASSIGN_OR_RETURN(out.external_cidr, parse_optional_cidr(path + ".localRemappedExternalCIDR",
                                                              s.local_remapped_external_cidr));
  return std::optional<LocalRemaps>(out);
}

Result<std::optional<LocalNetworks>> local_networks_from(const fedapi::IpamStateSpec& spec) {
  if (spec.pod_cidr.empty() && spec.service_cidr.empty() && spec.external_cidr.empty()) {
    return std::optional<LocalNetworks>();
  }
  LocalNetworks local;
  FED_ASSIGN_OR_RETURN(local.pod_cidr, parse_cidr("podCIDR", spec.pod_cidr));
  FED_ASSIGN_OR_RETURN(local.service_cidr, parse_cidr("serviceCIDR", spec.service_cidr));
  FED_ASSIGN_OR_RETURN(local.external_cidr, parse_cidr("externalCIDR", spec.external_cidr));
  return std::optional<LocalNetworks>(local);
}

// Endpoint mappings as the API writes them (the IpamState's of older releases, an IpamBlock's).
Result<std::map<net::Ipv4, EndpointState>> endpoints_from(
    const std::map<std::string, fedapi::IpamEndpointMapping>& mappings) {
  std::map<net::Ipv4, EndpointState> out;
  for (const auto& [key, m] : mappings) {
    const std::string path = "endpointMappings." + key;
    FED_ASSIGN_OR_RETURN(auto endpoint, parse_ip(path, key));
    FED_ASSIGN_OR_RETURN(auto external, parse_ip(path + ".ip", m.ip));
    out.emplace(endpoint, EndpointState{external, m.clusters});
  }
  return out;
}

std::map<std::string, fedapi::IpamEndpointMapping> mappings_of(
    const std::map<net::Ipv4, EndpointState>& endpoints) {
  std::map<std::string, fedapi::IpamEndpointMapping> out;
  for (const auto& [endpoint, es] : endpoints) {
    out.emplace(endpoint.str(), fedapi::IpamEndpointMapping{es.external_ip.str(), es.clusters});
  }
  return out;
}

}  // namespace

fedapi::IpamBlockSpec to_block_spec(const net::Cidr& block,
                                    const std::map<net::Ipv4, EndpointState>& endpoints) {
  return fedapi::IpamBlockSpec{block.str(), mappings_of(endpoints)};
}

Result<std::map<net::Ipv4, EndpointState>> from_block_spec(const fedapi::IpamBlockSpec& spec) {
  FED_ASSIGN_OR_RETURN(auto block, parse_cidr("cidr", spec.cidr));
  FED_ASSIGN_OR_RETURN(auto endpoints, endpoints_from(spec.endpoint_mappings));
  for (const auto& [endpoint, es] : endpoints) {
    if (!block.contains(es.external_ip)) {
      return fail(ErrorCode::Invalid, "endpointMappings." + endpoint.str() +
                                          ".ip: " + es.external_ip.str() + " is not in the block " +
                                          block.str());
    }
  }
  return endpoints;
}

fedapi::IpamStateSpec to_spec(const IpamState& state) {
  fedapi::IpamStateSpec spec;
  if (state.local) {
    spec.pod_cidr = state.local->pod_cidr.str();
    spec.service_cidr = state.local->service_cidr.str();
    spec.external_cidr = state.local->external_cidr.str();
  }
  for (const auto& c : state.reserved_subnets) spec.reserved_subnets.push_back(c.str());
  for (const auto& [id, cs] : state.clusters) {
    fedapi::IpamClusterSubnets out;
    if (const auto& s = cs.subnets) {
      out.pod_cidr = s->pod_cidr.str();
      out.external_cidr = s->external_cidr.str();
      out.remote_pod_cidr = cidr_or_none(s->pod_remap());
      out.remote_external_cidr = cidr_or_none(s->external_remap());
    }
    if (const auto& l = cs.local) {
      out.local_remapped_pod_cidr = cidr_or_none(l->pod_cidr);
      out.local_remapped_external_cidr = cidr_or_none(l->external_cidr);
    }
    spec.cluster_subnets.emplace(id, std::move(out));
  }
  spec.endpoint_mappings = mappings_of(state.endpoints);
  return spec;
}

Result<IpamState> from_spec(const fedapi::IpamStateSpec& spec) {
  IpamState state;
  FED_ASSIGN_OR_RETURN(state.local, local_networks_from(spec));
  for (std::size_t i = 0; i < spec.reserved_subnets.size(); ++i) {
    FED_ASSIGN_OR_RETURN(
        auto c, parse_cidr("reservedSubnets[" + std::to_string(i) + "]", spec.reserved_subnets[i]));
    state.reserved_subnets.push_back(c);
  }
  for (const auto& [id, s] : spec.cluster_subnets) {
    const std::string path = "clusterSubnets." + id;
    ClusterState cs;
    FED_ASSIGN_OR_RETURN(cs.subnets, subnets_from(path, s));
    FED_ASSIGN_OR_RETURN(cs.local, local_from(path, s));
    state.clusters.emplace(id, std::move(cs));
  }
  FED_ASSIGN_OR_RETURN(state.endpoints, endpoints_from(spec.endpoint_mappings));
  return state;
}

nlohmann::json state_to_json(const IpamState& state) {
  return to_spec(state);
}

Result<IpamState> state_from_json(const nlohmann::json& spec) {
  FED_ASSIGN_OR_RETURN(auto decoded, fedapi::decode<fedapi::IpamStateSpec>(spec, "IpamState spec"));
  auto state = from_spec(decoded);
  if (!state) return std::move(state).error().with_context("IpamState spec");
  return state;
}

fedapi::NatMappingSpec to_spec(const NatMappingSet& set) {
  fedapi::NatMappingSpec spec;
  spec.cluster_id = set.cluster_id;
  spec.external_cidr = set.external_cidr.str();
  for (const auto& [new_ip, endpoint] : set.mappings) {
    spec.mappings.emplace(new_ip.str(), endpoint.str());
  }
  return spec;
}

void set_network_status(const LocalNetworks& local, const ClusterState& peer,
                        fedapi::PeeringStatus& status) {
  status.local_pod_cidr = local.pod_cidr.str();
  status.local_external_cidr = local.external_cidr.str();
  status.remote_pod_cidr.clear();
  status.remote_external_cidr.clear();
  status.local_remapped_pod_cidr.clear();
  status.local_remapped_external_cidr.clear();
  if (const auto& s = peer.subnets) {
    status.remote_pod_cidr = cidr_or_none(s->pod_remap());
    status.remote_external_cidr = cidr_or_none(s->external_remap());
  }
  if (const auto& l = peer.local) {
    status.local_remapped_pod_cidr = cidr_or_none(l->pod_cidr);
    status.local_remapped_external_cidr = cidr_or_none(l->external_cidr);
  }
}

}  // namespace fed::fabric::ipam

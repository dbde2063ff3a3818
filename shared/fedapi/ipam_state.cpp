#include "shared/fedapi/ipam_state.hpp"

#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {
namespace {

// The map of objects at `key`, each read as T under "<key>.<name>".
template <typename T>
std::map<std::string, T> read_object_map(const nlohmann::json& j, std::string_view key) {
  std::map<std::string, T> out;
  const nlohmann::json object = read_object(j, key);
  for (auto it = object.begin(); it != object.end(); ++it) {
    const nlohmann::json& item = it.value();
    std::string path = std::string(key) + "." + it.key();
    if (!item.is_object()) throw FieldError(path + ": must be an object");
    out.emplace(it.key(), within(path, [&] { return item.template get<T>(); }));
  }
  return out;
}

}  // namespace

void to_json(nlohmann::json& j, const IpamClusterSubnets& s) {
  j = nlohmann::json::object();
  write_string(j, "podCIDR", s.pod_cidr);
  write_string(j, "externalCIDR", s.external_cidr);
  write_string(j, "remotePodCIDR", s.remote_pod_cidr);
  write_string(j, "remoteExternalCIDR", s.remote_external_cidr);
  write_string(j, "localRemappedPodCIDR", s.local_remapped_pod_cidr);
  write_string(j, "localRemappedExternalCIDR", s.local_remapped_external_cidr);
}

void from_json(const nlohmann::json& j, IpamClusterSubnets& s) {
  s.pod_cidr = read_string(j, "podCIDR");
  s.external_cidr = read_string(j, "externalCIDR");
  s.remote_pod_cidr = read_string(j, "remotePodCIDR");
  s.remote_external_cidr = read_string(j, "remoteExternalCIDR");
  s.local_remapped_pod_cidr = read_string(j, "localRemappedPodCIDR");
  s.local_remapped_external_cidr = read_string(j, "localRemappedExternalCIDR");
}

void to_json(nlohmann::json& j, const IpamEndpointMapping& m) {
  j = nlohmann::json::object();
  j["ip"] = m.ip;
  j["clusters"] = m.clusters;
}

void from_json(const nlohmann::json& j, IpamEndpointMapping& m) {
  m.ip = read_string(j, "ip", Presence::Required);
  m.clusters = read_string_list(j, "clusters");
}

void to_json(nlohmann::json& j, const IpamStateSpec& spec) {
  j = nlohmann::json::object();
  write_string(j, "podCIDR", spec.pod_cidr);
  write_string(j, "serviceCIDR", spec.service_cidr);
  write_string(j, "externalCIDR", spec.external_cidr);
  if (!spec.reserved_subnets.empty()) j["reservedSubnets"] = spec.reserved_subnets;
  if (!spec.cluster_subnets.empty()) j["clusterSubnets"] = spec.cluster_subnets;
  if (!spec.endpoint_mappings.empty()) j["endpointMappings"] = spec.endpoint_mappings;
  write_int(j, "endpointBlockLength", spec.endpoint_block_length);
}

void from_json(const nlohmann::json& j, IpamStateSpec& spec) {
  spec.pod_cidr = read_string(j, "podCIDR");
  spec.service_cidr = read_string(j, "serviceCIDR");
  spec.external_cidr = read_string(j, "externalCIDR");
  spec.reserved_subnets = read_string_list(j, "reservedSubnets");
  spec.cluster_subnets = read_object_map<IpamClusterSubnets>(j, "clusterSubnets");
  spec.endpoint_mappings = read_object_map<IpamEndpointMapping>(j, "endpointMappings");
  spec.endpoint_block_length = read_int(j, "endpointBlockLength");
}

void to_json(nlohmann::json& j, const IpamBlockSpec& spec) {
  j = nlohmann::json::object();
  j["cidr"] = spec.cidr;
  if (!spec.endpoint_mappings.empty()) j["endpointMappings"] = spec.endpoint_mappings;
}

void from_json(const nlohmann::json& j, IpamBlockSpec& spec) {
  spec.cidr = read_string(j, "cidr", Presence::Required);
  spec.endpoint_mappings = read_object_map<IpamEndpointMapping>(j, "endpointMappings");
}

void to_json(nlohmann::json& j, const IpamStateStatus& status) {
  j = nlohmann::json::object();
  j["peers"] = status.peers;
  j["endpointMappings"] = status.endpoint_mappings;
  write_int(j, "observedGeneration", status.observed_generation);
}

void from_json(const nlohmann::json& j, IpamStateStatus& status) {
  status.peers = read_int(j, "peers");
  status.endpoint_mappings = read_int(j, "endpointMappings");
  status.observed_generation = read_int(j, "observedGeneration");
}

}  // namespace fed::fedapi

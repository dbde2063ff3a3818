#include "shared/fedapi/nat_mapping.hpp"

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/kube/object_edits.hpp"

namespace fed::fedapi {

void to_json(nlohmann::json& j, const NatMappingSpec& spec) {
  j = nlohmann::json::object();
  j["clusterID"] = spec.cluster_id;
  j["externalCIDR"] = spec.external_cidr;
  j["mappings"] = nlohmann::json::object();
  for (const auto& [new_ip, endpoint] : spec.mappings) j["mappings"][new_ip] = endpoint;
}

void from_json(const nlohmann::json& j, NatMappingSpec& spec) {
  spec.cluster_id = read_string(j, "clusterID", Presence::Required);
  spec.external_cidr = read_string(j, "externalCIDR", Presence::Required);
  spec.mappings = read_string_map(j, "mappings");
}

void to_json(nlohmann::json& j, const NatMappingStatus& status) {
  j = nlohmann::json::object();
  write_string(j, "gatewayNode", status.gateway_node);
  j["applied"] = status.applied;
  write_conditions(j, status.conditions);
  write_int(j, "observedGeneration", status.observed_generation);
  write_string(j, "appliedTime", status.applied_time);
}

void from_json(const nlohmann::json& j, NatMappingStatus& status) {
  status.gateway_node = read_string(j, "gatewayNode");
  status.applied = read_int(j, "applied");
  status.conditions = read_conditions(j);
  status.observed_generation = read_int(j, "observedGeneration");
  status.applied_time = read_string(j, "appliedTime");
}

Status remove_nat_mappings(kube::DynamicClient& client, const std::string& peer) {
  FED_TRY(kube::remove_if_present(client, ref(kNatMapping, peer)));
  return kube::remove_selected(client, ref(kNatMapping, ""),
                               std::string(kClusterIdLabel) + "=" + peer);
}

}  // namespace fed::fedapi

#pragma once
// NatMapping: one per peer, in the cluster whose gateway serves it. The manager writes the
// spec from its IPAM (MapEndpointIP / UnmapEndpointIP); the gateway's node agent turns each
// entry into a DNAT "-d <newIP> -j DNAT --to-destination <endpointIP>" and reports in status.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/condition.hpp"

namespace fed::fedapi {

struct NatMappingSpec {
  std::string cluster_id;                       // the peer these mappings are for
  std::string external_cidr;                    // our ExternalCIDR as that peer sees it
  std::map<std::string, std::string> mappings;  // newIP (in external_cidr) -> endpoint IP

  friend bool operator==(const NatMappingSpec&, const NatMappingSpec&) = default;
};

struct NatMappingStatus {
  std::string gateway_node;           // the node whose nat table holds the rules
  std::int64_t applied = 0;           // DNAT rules present after the last pass
  std::vector<Condition> conditions;  // Applied
  std::int64_t observed_generation = 0;

  friend bool operator==(const NatMappingStatus&, const NatMappingStatus&) = default;
};

void to_json(nlohmann::json& j, const NatMappingSpec& spec);
void from_json(const nlohmann::json& j, NatMappingSpec& spec);  // throws; use decode()
void to_json(nlohmann::json& j, const NatMappingStatus& status);
void from_json(const nlohmann::json& j, NatMappingStatus& status);

}  // namespace fed::fedapi

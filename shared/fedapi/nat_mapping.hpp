#pragma once
// NatMapping: one per peer and block of the ExternalCIDR (named "<peer>.<block>", labelled with
// the peer's cluster id), in the cluster whose gateway serves it. The manager writes the spec
// from its IPAM (MapEndpointIP / UnmapEndpointIP); the gateway's node agent turns each entry of
// every NatMapping of a peer into a DNAT "-d <newIP> -j DNAT --to-destination <endpointIP>" and
// reports in status. Releases before the blocks wrote one object per peer, named after it.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/condition.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

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
  // When the nat table holding observed_generation's rules was committed: RFC 3339 with
  // microseconds, so a mapping's time to go live can be measured (docs/BENCHMARKS.md).
  std::string applied_time;

  friend bool operator==(const NatMappingStatus&, const NatMappingStatus&) = default;
};

void to_json(nlohmann::json& j, const NatMappingSpec& spec);
void from_json(const nlohmann::json& j, NatMappingSpec& spec);  // throws; use decode()
void to_json(nlohmann::json& j, const NatMappingStatus& status);
void from_json(const nlohmann::json& j, NatMappingStatus& status);

// Deletes every NatMapping of `peer` in the cluster of `client`: its blocks' and the one an
// older release named after it. Already gone is done.
Status remove_nat_mappings(kube::DynamicClient& client, const std::string& peer);

}  // namespace fed::fedapi

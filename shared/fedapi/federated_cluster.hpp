#pragma once
// FederatedCluster (docs/JOIN.md): the spec `kubectl fed join` records and the conditions the
// membership controller reports. The status' networks and tunnel blocks are not modelled here
// (the membership controller writes them as JSON); readers of this type need the conditions.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/peering.hpp"

namespace fed::fedapi {

struct FederatedClusterSpec {
  std::string cluster_id;
  std::string role;  // "host" / "member"; "" reads as member
  std::string api_endpoint;
  std::string credential_secret_name;
  std::string credential_secret_namespace;
  std::map<std::string, std::string> cluster_labels;  // exported to its virtual node
  std::string offered_cpu;                            // a quantity, "" when not offered
  std::string offered_memory;
  TunnelBackend tunnel_backend = TunnelBackend::WireGuard;  // of its Peerings with the host

  friend bool operator==(const FederatedClusterSpec&, const FederatedClusterSpec&) = default;
};

struct FederatedClusterStatus {
  std::vector<Condition> conditions;  // NetworkReady, TunnelReady, Ready
  std::int64_t observed_generation = 0;

  friend bool operator==(const FederatedClusterStatus&, const FederatedClusterStatus&) = default;
};

void to_json(nlohmann::json& j, const FederatedClusterSpec& spec);
// Throws FieldError; call through decode(). Offered quantities may be integers or strings.
void from_json(const nlohmann::json& j, FederatedClusterSpec& spec);
// Writes conditions and observedGeneration only.
void to_json(nlohmann::json& j, const FederatedClusterStatus& status);
void from_json(const nlohmann::json& j, FederatedClusterStatus& status);

}  // namespace fed::fedapi

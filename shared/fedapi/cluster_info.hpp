#pragma once
// What every cluster of a federation says about itself (docs/JOIN.md): the federation ConfigMap
// written by `init`/`join`, and the gateway ConfigMap its gateway's node agent publishes.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/fedapi/names.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

using fedapi::kFederationConfigMap;
using fedapi::kGatewayConfigMap;
using fedapi::kNamespace;

enum class ClusterRole { Host, Member };

// The federation ConfigMap: who this cluster is and its own ranges.
struct ClusterInfo {
  std::string cluster_id;
  ClusterRole role = ClusterRole::Member;
  net::Cidr pod_cidr;
  net::Cidr service_cidr;
  std::string federation_id;  // the first host's cluster id ("" on a host: its own)

  // The federation this cluster is in: its first host's cluster id. Every host of a federation
  // with several (docs/HA.md) and every member names the same one.
  const std::string& federation() const {
    return federation_id.empty() ? cluster_id : federation_id;
  }

  friend bool operator==(const ClusterInfo&, const ClusterInfo&) = default;
};

// The gateway ConfigMap: where the cluster's tunnel ends.
struct GatewayInfo {
  std::string node;
  std::string endpoint;    // "ip:port"
  std::string public_key;  // WireGuard, base64

  friend bool operator==(const GatewayInfo&, const GatewayInfo&) = default;
};

// Invalid naming the key when a field is missing or malformed.
Result<ClusterInfo> parse_cluster_info(const nlohmann::json& configmap);
Result<GatewayInfo> parse_gateway_info(const nlohmann::json& configmap);

// Reads the ConfigMaps from a cluster; NotFound (with the fix) when the cluster was never
// initialised or joined. The gateway is nullopt until the gateway's agent has published it.
Result<ClusterInfo> read_cluster_info(kube::DynamicClient& client);
Result<std::optional<GatewayInfo>> read_gateway_info(kube::DynamicClient& client);

// The ConfigMap's ref in `kNamespace`.
kube::ResourceRef configmap_ref(std::string_view name);

}  // namespace fed::federation

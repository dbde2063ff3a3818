#pragma once
// IpamState: the manager's IPAM persisted in its cluster, so a restarted manager restores every
// reservation and mapping. The object "ipam" holds the networks; the endpoint mappings are in
// IpamBlock objects, one per block of the ExternalCIDR (docs/DATAPATH.md "Endpoint mappings at
// scale"), so one mapping's write costs a block, not the federation. agent/manager/ipam
// converts both to and from its typed form and validates the whole on restore.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fed::fedapi {

// The name of the one IpamState object of a cluster.
inline constexpr std::string_view kIpamStateName = "ipam";

// The networks of one peer cluster. Network fields are CIDRs or "None"; "" is "not known yet".
struct IpamClusterSubnets {
  std::string pod_cidr;                      // the peer's PodCIDR as it announced it
  std::string external_cidr;                 // the peer's ExternalCIDR as it announced it
  std::string remote_pod_cidr;               // our remap of the peer's PodCIDR, or "None"
  std::string remote_external_cidr;          // our remap of the peer's ExternalCIDR, or "None"
  std::string local_remapped_pod_cidr;       // our PodCIDR as the peer sees it, or "None"
  std::string local_remapped_external_cidr;  // our ExternalCIDR as the peer sees it, or "None"

  friend bool operator==(const IpamClusterSubnets&, const IpamClusterSubnets&) = default;
};

// An ExternalCIDR address held by one endpoint, and the peers it is reflected to.
struct IpamEndpointMapping {
  std::string ip;                     // the ExternalCIDR address
  std::vector<std::string> clusters;  // sorted peer cluster ids

  friend bool operator==(const IpamEndpointMapping&, const IpamEndpointMapping&) = default;
};

struct IpamStateSpec {
  std::string pod_cidr;
  std::string service_cidr;
  std::string external_cidr;
  std::vector<std::string> reserved_subnets;                  // user-reserved, never allocated
  std::map<std::string, IpamClusterSubnets> cluster_subnets;  // by peer cluster id
  // Releases before IpamBlock kept every mapping here; read to migrate, never written.
  std::map<std::string, IpamEndpointMapping> endpoint_mappings;  // by endpoint IP
  std::int64_t endpoint_block_length = 0;  // the prefix length of the IpamBlocks; 0: not chosen

  friend bool operator==(const IpamStateSpec&, const IpamStateSpec&) = default;
};

// IpamBlock: the endpoints whose ExternalCIDR address is in one block `cidr` of it. Named by
// ipam::block_name() ("10-0-2-0-24").
struct IpamBlockSpec {
  std::string cidr;
  std::map<std::string, IpamEndpointMapping> endpoint_mappings;  // by endpoint IP

  friend bool operator==(const IpamBlockSpec&, const IpamBlockSpec&) = default;
};

// Counts for `kubectl get`; the spec is the state.
struct IpamStateStatus {
  std::int64_t peers = 0;
  std::int64_t endpoint_mappings = 0;
  std::int64_t observed_generation = 0;

  friend bool operator==(const IpamStateStatus&, const IpamStateStatus&) = default;
};

void to_json(nlohmann::json& j, const IpamClusterSubnets& s);
void from_json(const nlohmann::json& j, IpamClusterSubnets& s);  // throws; use decode()
void to_json(nlohmann::json& j, const IpamEndpointMapping& m);
void from_json(const nlohmann::json& j, IpamEndpointMapping& m);
void to_json(nlohmann::json& j, const IpamStateSpec& spec);
void from_json(const nlohmann::json& j, IpamStateSpec& spec);
void to_json(nlohmann::json& j, const IpamBlockSpec& spec);
void from_json(const nlohmann::json& j, IpamBlockSpec& spec);
void to_json(nlohmann::json& j, const IpamStateStatus& status);
void from_json(const nlohmann::json& j, IpamStateStatus& status);

}  // namespace fed::fedapi

#pragma once
// How a cluster's IPAM is kept in its API server (docs/DATAPATH.md "Endpoint mappings at
// scale"): IpamState "ipam" holds the networks and the block length, one IpamBlock per block of
// the ExternalCIDR holds the endpoints whose address is in it. Reading merges both (and the
// endpointMappings an older release left in IpamState); writing is one object at a time,
// conditional on the resourceVersion read, so another writer shows as Conflict.

#include <cstdint>
#include <map>
#include <string>

#include "agent/manager/ipam/ipam_types.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

using EndpointsByIp = std::map<net::Ipv4, fabric::ipam::EndpointState>;

struct StoredIpam {
  fabric::ipam::IpamState state;  // the networks, and every stored endpoint
  std::string networks_version;   // IpamState ipam's resourceVersion; "" when it does not exist
  std::uint8_t block_length = 0;  // 0: not chosen yet
  bool legacy_endpoints = false;  // IpamState ipam still holds endpointMappings
  std::map<net::Cidr, EndpointsByIp> blocks;        // each IpamBlock as stored
  std::map<net::Cidr, std::string> block_versions;  // and its resourceVersion
  std::size_t dropped_references = 0;  // endpoint references to peers the networks do not have
};

// Reads IpamState ipam and every IpamBlock. An endpoint in both an IpamBlock and the legacy
// field is the block's (it was written later). References to a peer that is not in the
// networks are dropped (a peer's removal is stored before its blocks'); an endpoint left with
// no peer is dropped too. Invalid with the object and field for malformed objects.
Result<StoredIpam> read_stored_ipam(kube::DynamicClient& client);

// Writes IpamState ipam with `networks` (endpoints, if any, are not written) and the block
// length, created when `version` is "". The new resourceVersion.
kube::ApiResult<std::string> write_stored_networks(kube::DynamicClient& client,
                                                   const fabric::ipam::IpamState& networks,
                                                   std::uint8_t block_length,
                                                   const std::string& version);

// Writes the IpamBlock of `block` with `endpoints`: created when `version` is "", deleted when
// `endpoints` is empty (a block that empties is removed). The new resourceVersion, "" when
// deleted or absent.
kube::ApiResult<std::string> write_stored_block(kube::DynamicClient& client, const net::Cidr& block,
                                                const EndpointsByIp& endpoints,
                                                const std::string& version);

}  // namespace fed::federation

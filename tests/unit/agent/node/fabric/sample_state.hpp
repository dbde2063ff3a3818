#pragma once
// State documents shared by the fabric unit tests: cluster A's two nodes peered with B, where
// B remapped A's PodCIDR (single NAT) and holds one ExternalCIDR mapping toward A.

#include <string>

#include <doctest/doctest.h>

#include "agent/node/fabric/node_state_parse.hpp"

namespace fed::fabric::testing {

inline std::string sample_state(const std::string& node_name) {
  return R"(
clusterID: a
nodeName: )" +
         node_name + R"(
gatewayNode: a-n1
podCIDR: 10.1.0.0/24
externalCIDR: 192.168.10.0/24
nodes:
  - {name: a-n1, ip: 172.20.1.1, podCIDR: 10.1.0.0/25}
  - {name: a-n2, ip: 172.20.1.2, podCIDR: 10.1.0.128/25}
peers:
  - clusterID: b
    podCIDR: 10.0.0.0/24
    externalCIDR: 192.168.20.0/24
    localNATPodCIDR: 10.3.0.0/24
    tunnel: {interface: wan0, endpoint: 203.0.113.2}
    natMappings:
      192.168.10.45: 10.0.0.77
)";
}

// Cluster A's gateway, parsed.
inline NodeNetworkState sample_gateway() {
  auto st = parse_node_state(sample_state("a-n1"));
  REQUIRE(st);
  return *st;
}

}  // namespace fed::fabric::testing

#pragma once
// NodeNetworkState: everything one node's datapath needs, as plain values. Produced by the
// state-file parser now and by the Peering/NatMapping informers later; validated before use.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shared/net/net_types.hpp"

namespace fed::fabric {

// A node of the local cluster: its underlay IP and the slice of the PodCIDR it hosts.
struct ClusterNode {
  std::string name;
  net::Ipv4 ip;
  net::Cidr pod_cidr;

  friend bool operator==(const ClusterNode&, const ClusterNode&) = default;
};

// One ExternalCIDR mapping: `external_ip` (our ExternalCIDR as the peer sees it) is DNATed to
// `endpoint_ip` (the endpoint as this cluster sees it).
struct NatMapping {
  net::Ipv4 external_ip;
  net::Ipv4 endpoint_ip;

  friend auto operator<=>(const NatMapping&, const NatMapping&) = default;  // by external first
};

// A peered cluster, with every range in this cluster's view unless named otherwise.
struct Peer {
  std::string cluster_id;
  net::Cidr pod_cidr;       // the peer's pods as this cluster sees them (after our remap)
  net::Cidr external_cidr;  // the peer's ExternalCIDR as this cluster sees it
  std::optional<net::Cidr> real_pod_cidr;         // the peer's own PodCIDR, when we remapped it
  std::optional<net::Cidr> real_external_cidr;    // the peer's own ExternalCIDR, when remapped
  std::optional<net::Cidr> local_pod_remap;       // our PodCIDR as the peer sees it; none: same
  std::optional<net::Cidr> local_external_remap;  // our ExternalCIDR as the peer sees it
  std::string tunnel_interface;                   // gateway: the link toward the peer
  net::Ipv4 tunnel_endpoint;                      // the peer gateway's address on that link
  std::vector<NatMapping> nat_mappings;           // sorted by external_ip

  friend bool operator==(const Peer&, const Peer&) = default;
};

struct NodeNetworkState {
  std::string cluster_id;
  std::string node_name;
  std::string gateway_node;  // the node that terminates the inter-cluster links
  net::Cidr pod_cidr;
  net::Cidr external_cidr;
  std::vector<ClusterNode> nodes;  // every node of the local cluster, this one included
  std::vector<Peer> peers;

  bool is_gateway() const { return node_name == gateway_node; }
  // The entry of `name` in `nodes`, or nullptr.
  const ClusterNode* node(const std::string& name) const;
  // Our PodCIDR / ExternalCIDR as `peer` sees them.
  net::Cidr pod_view_of(const Peer& peer) const { return peer.local_pod_remap.value_or(pod_cidr); }
  net::Cidr external_view_of(const Peer& peer) const {
    return peer.local_external_remap.value_or(external_cidr);
  }

  friend bool operator==(const NodeNetworkState&, const NodeNetworkState&) = default;
};

}  // namespace fed::fabric

// validate_node_state (declared in node_state_parse.hpp): the cross-field rules of a
// NodeNetworkState. Every message names the field and says what would fix it.
#include <map>
#include <set>

#include "agent/node/fabric/chain_names.hpp"
#include "agent/node/fabric/node_state_parse.hpp"
#include "agent/node/fabric/translate.hpp"

namespace fed::fabric {
namespace {

struct NamedRange {
  std::string field;
  net::Cidr cidr;
};

Unexpected invalid_field(const std::string& field, const std::string& what) {
  return fail(ErrorCode::Invalid, field + ": " + what);
}

std::string peer_field(std::size_t i, const Peer& p, std::string_view key) {
  return "peers[" + std::to_string(i) + "] (clusterID \"" + p.cluster_id + "\")." +
         std::string(key);
}

// A remap must keep the prefix length, or MapIPToNetwork/NETMAP would not be 1:1.
Status same_length(const std::string& field, const net::Cidr& remap, const std::string& of_field,
                   const net::Cidr& original) {
  if (remap.length == original.length) return ok();
  return invalid_field(
      field, remap.str() + " remaps " + of_field + " " + original.str() +
                 " with a different prefix length (/" + std::to_string(remap.length) + " vs /" +
                 std::to_string(original.length) + "); a remap must keep the prefix length");
}

Status validate_nodes(const NodeNetworkState& st) {
  std::set<std::string> names;
  std::map<net::Ipv4, std::string> overlay;
  for (std::size_t i = 0; i < st.nodes.size(); ++i) {
    const auto& n = st.nodes[i];
    std::string f = "nodes[" + std::to_string(i) + "]";
    if (!names.insert(n.name).second) return invalid_field(f + ".name", "duplicate node " + n.name);
    if (!st.pod_cidr.contains(n.pod_cidr)) {
      return invalid_field(f + ".podCIDR",
                           n.pod_cidr.str() + " is outside podCIDR " + st.pod_cidr.str());
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (st.nodes[j].pod_cidr.overlaps(n.pod_cidr)) {
        return invalid_field(f + ".podCIDR", n.pod_cidr.str() + " overlaps nodes[" +
                                                 std::to_string(j) + "].podCIDR " +
                                                 st.nodes[j].pod_cidr.str());
      }
    }
    auto [it, fresh] = overlay.emplace(overlay_ip(n.ip), n.name);
    if (!fresh) {
      return invalid_field(f + ".ip", n.ip.str() + " gives the same overlay address " +
                                          it->first.str() + " as node " + it->second +
                                          " (the overlay uses the last three octets)");
    }
  }
  if (st.node(st.node_name) == nullptr) {
    return invalid_field("nodeName", "\"" + st.node_name + "\" is not listed in nodes");
  }
  if (st.node(st.gateway_node) == nullptr) {
    return invalid_field("gatewayNode", "\"" + st.gateway_node + "\" is not listed in nodes");
  }
  return ok();
}

Status validate_peer(const NodeNetworkState& st, std::size_t i, const Peer& p) {
  if (p.real_pod_cidr) {
    FED_TRY(same_length(peer_field(i, p, "podCIDR"), p.pod_cidr, "realPodCIDR", *p.real_pod_cidr));
  }
  if (p.real_external_cidr) {
    FED_TRY(same_length(peer_field(i, p, "externalCIDR"), p.external_cidr, "realExternalCIDR",
                        *p.real_external_cidr));
  }
  if (p.local_pod_remap) {
    FED_TRY(same_length(peer_field(i, p, "localNATPodCIDR"), *p.local_pod_remap, "podCIDR",
                        st.pod_cidr));
  }
  if (p.local_external_remap) {
    FED_TRY(same_length(peer_field(i, p, "localNATExternalCIDR"), *p.local_external_remap,
                        "externalCIDR", st.external_cidr));
  }
  auto pod_view = st.pod_view_of(p);
  auto ext_view = st.external_view_of(p);
  if (pod_view.overlaps(ext_view)) {
    return invalid_field(peer_field(i, p, "localNATExternalCIDR"),
                         "our ExternalCIDR as the peer sees it (" + ext_view.str() +
                             ") overlaps our PodCIDR as the peer sees it (" + pod_view.str() + ")");
  }
  for (const auto& m : p.nat_mappings) {
    if (!ext_view.contains(
            m.external_ip)) {  // the field's name only when it is wrong: 30 000 a pass
      std::string f = peer_field(i, p, "natMappings") + "[" + m.external_ip.str() + "]";
      return invalid_field(f, m.external_ip.str() +
                                  " is outside our ExternalCIDR as this peer sees it (" +
                                  ext_view.str() + ")");
    }
  }
  return ok();
}

}  // namespace

Status validate_node_state(const NodeNetworkState& st) {
  FED_TRY(validate_nodes(st));
  if (st.pod_cidr.overlaps(st.external_cidr)) {
    return invalid_field("externalCIDR",
                         st.external_cidr.str() + " overlaps podCIDR " + st.pod_cidr.str());
  }
  std::vector<NamedRange> ranges{{"podCIDR", st.pod_cidr}, {"externalCIDR", st.external_cidr}};
  std::map<std::string, std::string> maps;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < st.peers.size(); ++i) {
    const auto& p = st.peers[i];
    if (!ids.insert(p.cluster_id).second) {
      return invalid_field(peer_field(i, p, "clusterID"), "duplicate peer; list each cluster once");
    }
    if (p.cluster_id == st.cluster_id) {
      return invalid_field(peer_field(i, p, "clusterID"), "a cluster cannot peer with itself");
    }
    auto [it, fresh] = maps.emplace(mapping_map(p.cluster_id), p.cluster_id);
    if (!fresh) {
      return invalid_field(peer_field(i, p, "clusterID"),
                           "its map name " + it->first + " collides with peer \"" + it->second +
                               "\"; rename one of the clusters");
    }
    FED_TRY(validate_peer(st, i, p));
    for (auto [key, cidr] : {std::pair{"podCIDR", p.pod_cidr}, {"externalCIDR", p.external_cidr}}) {
      std::string f = peer_field(i, p, key);
      for (const auto& r : ranges) {
        if (r.cidr.overlaps(cidr)) {
          return invalid_field(f, cidr.str() + " overlaps " + r.field + " " + r.cidr.str() +
                                      "; every peer range must be distinct in this cluster's view "
                                      "(remap one of them)");
        }
      }
      ranges.push_back({f, cidr});
    }
  }
  return ok();
}

}  // namespace fed::fabric

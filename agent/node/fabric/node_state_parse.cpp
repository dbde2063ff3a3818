#include "agent/node/fabric/node_state_parse.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <initializer_list>

namespace fed::fabric {
namespace {

Unexpected invalid(const std::string& path, const std::string& what) {
  return fail(ErrorCode::Invalid, path + ": " + what);
}

// Rejects keys of `node` outside `known`, so a typo is an error instead of a silent default.
Status check_keys(const YAML::Node& node, const std::string& path,
                  std::initializer_list<std::string_view> known) {
  if (!node.IsMap()) return invalid(path.empty() ? "document" : path, "must be a mapping");
  for (const auto& kv : node) {
    auto key = kv.first.as<std::string>();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      return invalid(path.empty() ? key : path + "." + key, "unknown field (known: " + list + ")");
    }
  }
  return ok();
}

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

Result<std::string> get_string(const YAML::Node& node, const std::string& path,
                               std::string_view key) {
  auto v = node[std::string(key)];
  if (!v || v.IsNull()) return invalid(join(path, key), "is required");
  if (!v.IsScalar()) return invalid(join(path, key), "must be a string");
  auto s = v.as<std::string>();
  if (s.empty()) return invalid(join(path, key), "must not be empty");
  return s;
}

Result<net::Ipv4> get_ip(const YAML::Node& node, const std::string& path, std::string_view key) {
  FED_ASSIGN_OR_RETURN(auto s, get_string(node, path, key));
  auto ip = net::Ipv4::parse(s);
  if (!ip) return invalid(join(path, key), ip.error().message());
  return *ip;
}

Result<net::Cidr> get_cidr(const YAML::Node& node, const std::string& path, std::string_view key) {
  FED_ASSIGN_OR_RETURN(auto s, get_string(node, path, key));
  auto c = net::Cidr::parse(s);
  if (!c) return invalid(join(path, key), c.error().message());
  return *c;
}

// An optional CIDR where absent, empty and "None" (the spec's word for "not remapped") agree.
Result<std::optional<net::Cidr>> get_optional_cidr(const YAML::Node& node, const std::string& path,
                                                   std::string_view key) {
  auto v = node[std::string(key)];
  if (!v || v.IsNull()) return std::optional<net::Cidr>();
  if (!v.IsScalar()) return invalid(join(path, key), "must be a CIDR string or \"None\"");
  auto s = v.as<std::string>();
  if (s.empty() || s == "None") return std::optional<net::Cidr>();
  auto c = net::Cidr::parse(s);
  if (!c) return invalid(join(path, key), c.error().message());
  return std::optional<net::Cidr>(*c);
}

Result<ClusterNode> parse_node(const YAML::Node& n, const std::string& path) {
  FED_TRY(check_keys(n, path, {"name", "ip", "podCIDR"}));
  ClusterNode node;
  FED_ASSIGN_OR_RETURN(node.name, get_string(n, path, "name"));
  FED_ASSIGN_OR_RETURN(node.ip, get_ip(n, path, "ip"));
  FED_ASSIGN_OR_RETURN(node.pod_cidr, get_cidr(n, path, "podCIDR"));
  return node;
}

Result<Peer> parse_peer(const YAML::Node& n, const std::string& path) {
  FED_TRY(check_keys(n, path,
                     {"clusterID", "podCIDR", "externalCIDR", "realPodCIDR", "realExternalCIDR",
                      "localNATPodCIDR", "localNATExternalCIDR", "tunnel", "natMappings"}));
  Peer p;
  FED_ASSIGN_OR_RETURN(p.cluster_id, get_string(n, path, "clusterID"));
  FED_ASSIGN_OR_RETURN(p.pod_cidr, get_cidr(n, path, "podCIDR"));
  FED_ASSIGN_OR_RETURN(p.external_cidr, get_cidr(n, path, "externalCIDR"));
  FED_ASSIGN_OR_RETURN(p.real_pod_cidr, get_optional_cidr(n, path, "realPodCIDR"));
  FED_ASSIGN_OR_RETURN(p.real_external_cidr, get_optional_cidr(n, path, "realExternalCIDR"));
  FED_ASSIGN_OR_RETURN(p.local_pod_remap, get_optional_cidr(n, path, "localNATPodCIDR"));
  FED_ASSIGN_OR_RETURN(p.local_external_remap, get_optional_cidr(n, path, "localNATExternalCIDR"));
  auto tunnel = n["tunnel"];
  std::string tpath = join(path, "tunnel");
  if (!tunnel) return invalid(tpath, "is required (interface and endpoint toward the peer)");
  FED_TRY(check_keys(tunnel, tpath, {"interface", "endpoint"}));
  FED_ASSIGN_OR_RETURN(p.tunnel_interface, get_string(tunnel, tpath, "interface"));
  FED_ASSIGN_OR_RETURN(p.tunnel_endpoint, get_ip(tunnel, tpath, "endpoint"));
  auto maps = n["natMappings"];
  std::string mpath = join(path, "natMappings");
  if (maps && !maps.IsNull()) {
    if (!maps.IsMap()) return invalid(mpath, "must map ExternalCIDR IPs to endpoint IPs");
    for (const auto& kv : maps) {
      auto key = kv.first.as<std::string>();
      auto ext = net::Ipv4::parse(key);
      if (!ext) return invalid(mpath + "[" + key + "]", ext.error().message());
      if (!kv.second.IsScalar()) return invalid(mpath + "[" + key + "]", "must be an IP");
      auto ep = net::Ipv4::parse(kv.second.as<std::string>());
      if (!ep) return invalid(mpath + "[" + key + "]", ep.error().message());
      p.nat_mappings.push_back(NatMapping{*ext, *ep});
    }
    std::sort(p.nat_mappings.begin(), p.nat_mappings.end(),
              [](const auto& a, const auto& b) { return a.external_ip < b.external_ip; });
  }
  return p;
}

Result<NodeNetworkState> parse_document(const YAML::Node& doc) {
  FED_TRY(check_keys(doc, "",
                     {"apiVersion", "kind", "clusterID", "nodeName", "gatewayNode", "podCIDR",
                      "externalCIDR", "nodes", "peers"}));
  NodeNetworkState st;
  FED_ASSIGN_OR_RETURN(st.cluster_id, get_string(doc, "", "clusterID"));
  FED_ASSIGN_OR_RETURN(st.node_name, get_string(doc, "", "nodeName"));
  FED_ASSIGN_OR_RETURN(st.gateway_node, get_string(doc, "", "gatewayNode"));
  FED_ASSIGN_OR_RETURN(st.pod_cidr, get_cidr(doc, "", "podCIDR"));
  FED_ASSIGN_OR_RETURN(st.external_cidr, get_cidr(doc, "", "externalCIDR"));
  auto nodes = doc["nodes"];
  if (!nodes || !nodes.IsSequence() || nodes.size() == 0) {
    return invalid("nodes", "must list every node of the local cluster (name, ip, podCIDR)");
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    FED_ASSIGN_OR_RETURN(auto node, parse_node(nodes[i], "nodes[" + std::to_string(i) + "]"));
    st.nodes.push_back(std::move(node));
  }
  auto peers = doc["peers"];
  if (peers && !peers.IsNull()) {
    if (!peers.IsSequence()) return invalid("peers", "must be a list");
    for (std::size_t i = 0; i < peers.size(); ++i) {
      FED_ASSIGN_OR_RETURN(auto peer, parse_peer(peers[i], "peers[" + std::to_string(i) + "]"));
      st.peers.push_back(std::move(peer));
    }
  }
  return st;
}

}  // namespace

Result<NodeNetworkState> parse_node_state(std::string_view text) {
  Result<NodeNetworkState> st = fail(ErrorCode::Invalid, "empty state document");
  try {
    YAML::Node doc = YAML::Load(std::string(text));
    if (!doc || doc.IsNull()) return fail(ErrorCode::Invalid, "state document is empty");
    st = parse_document(doc);
  } catch (const YAML::Exception& e) {
    return fail(ErrorCode::Invalid,
                std::string("state document is not valid YAML/JSON: ") + e.what());
  }
  if (!st) return st;
  FED_TRY(validate_node_state(*st));
  return st;
}

}  // namespace fed::fabric

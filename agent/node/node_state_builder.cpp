#include "agent/node/node_state_builder.hpp"

#include <algorithm>
#include <utility>

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/group.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

// An address that matches nothing, for the ExternalCIDR of a cluster the manager has not set
// up yet: the state then has no peers, so nothing uses it.
constexpr net::Cidr kNoExternalCidr{net::Ipv4{0}, 32};

Result<net::Cidr> cidr_field(const std::string& what, const std::string& text) {
  auto c = net::Cidr::parse(text);
  if (!c) return fail(ErrorCode::Invalid, what + ": " + c.error().message());
  return *c;
}

// A status network field: a CIDR, or "None" (not remapped) which yields nullopt.
Result<std::optional<net::Cidr>> optional_cidr(const std::string& what, const std::string& text) {
  if (text.empty() || text == fedapi::kNone) return std::optional<net::Cidr>();
  FED_ASSIGN_OR_RETURN(auto c, cidr_field(what, text));
  return std::optional<net::Cidr>(c);
}

std::string internal_ip(const json& node) {
  const json status = node.value("status", json::object());
  const json addresses = status.value("addresses", json::array());
  for (const auto& a : addresses) {
    if (a.value("type", "") == "InternalIP") return a.value("address", "");
  }
  return "";
}

}  // namespace

std::string peering_pending_reason(const json& peering) {
  const json spec = peering.value("spec", json::object());
  const json status = peering.value("status", json::object());
  const auto conditions = fedapi::read_conditions(status);
  const auto* ready = fedapi::find_condition(conditions, "NetworkReady");
  if (ready == nullptr || ready->status != "True") return "networks not exchanged yet";
  if (status.value("localRemappedPodCIDR", "").empty()) return "the peer's view of us is unknown";
  if (spec.value("gatewayEndpoint", "").empty()) return "the peer's gateway is not up";
  if (spec.value("backend", "wireguard") == "wireguard" && spec.value("publicKey", "").empty()) {
    return "the peer's gateway key is not published";
  }
  if (spec.value("peerTunnelAddress", "").empty() || spec.value("localTunnelAddress", "").empty()) {
    return "no tunnel address yet";
  }
  return "";
}

namespace {

Result<fabric::Peer> peer_from(const json& peering,
                               const std::vector<NatMappingEntriesPtr>& nat_mappings,
                               const std::string& tunnel_interface) {
  const json spec = peering.value("spec", json::object());
  const json status = peering.value("status", json::object());
  const std::string id = spec.value("peerClusterID", "");
  const std::string what = "Peering " + peering["metadata"].value("name", "");
  fabric::Peer p;
  p.cluster_id = id;
  FED_ASSIGN_OR_RETURN(auto announced_pod,
                       cidr_field(what + " spec.peerPodCIDR", spec.value("peerPodCIDR", "")));
  FED_ASSIGN_OR_RETURN(auto announced_ext, cidr_field(what + " spec.peerExternalCIDR",
                                                      spec.value("peerExternalCIDR", "")));
  FED_ASSIGN_OR_RETURN(auto pod_remap, optional_cidr(what + " status.remotePodCIDR",
                                                     status.value("remotePodCIDR", "")));
  FED_ASSIGN_OR_RETURN(auto ext_remap, optional_cidr(what + " status.remoteExternalCIDR",
                                                     status.value("remoteExternalCIDR", "")));
  p.pod_cidr = pod_remap.value_or(announced_pod);
  p.external_cidr = ext_remap.value_or(announced_ext);
  if (pod_remap) p.real_pod_cidr = announced_pod;
  if (ext_remap) p.real_external_cidr = announced_ext;
  FED_ASSIGN_OR_RETURN(p.local_pod_remap, optional_cidr(what + " status.localRemappedPodCIDR",
                                                        status.value("localRemappedPodCIDR", "")));
  FED_ASSIGN_OR_RETURN(p.local_external_remap,
                       optional_cidr(what + " status.localRemappedExternalCIDR",
                                     status.value("localRemappedExternalCIDR", "")));
  p.tunnel_interface = tunnel_interface;
  auto endpoint = net::Ipv4::parse(spec.value("peerTunnelAddress", ""));
  if (!endpoint) {
    return fail(ErrorCode::Invalid,
                what + " spec.peerTunnelAddress: " + endpoint.error().message());
  }
  p.tunnel_endpoint = *endpoint;
  // A peer's mappings come in one NatMapping per block, each sorted and the blocks disjoint:
  // laid end to end in order of their first entry they are sorted, which is checked rather
  // than sorted again. While the manager replaces an older release's single object by its
  // blocks, both hold the same entries: then they are sorted and deduplicated.
  std::vector<const NatMappingEntries*> ours;
  std::size_t total = 0;
  for (const auto& nm : nat_mappings) {
    if (nm->peer != id) continue;
    if (!nm->error.empty()) return fail(ErrorCode::Invalid, nm->error);
    if (nm->entries.empty()) continue;
    ours.push_back(nm.get());
    total += nm->entries.size();
  }
  std::sort(ours.begin(), ours.end(), [](const auto* a, const auto* b) {
    return a->entries.front().external_ip < b->entries.front().external_ip;
  });
  p.nat_mappings.reserve(total);
  for (const auto* nm : ours) {
    p.nat_mappings.insert(p.nat_mappings.end(), nm->entries.begin(), nm->entries.end());
  }
  if (!std::is_sorted(p.nat_mappings.begin(), p.nat_mappings.end())) {
    std::sort(p.nat_mappings.begin(), p.nat_mappings.end());
  }
  p.nat_mappings.erase(std::unique(p.nat_mappings.begin(), p.nat_mappings.end()),
                       p.nat_mappings.end());
  return p;
}

}  // namespace

std::string gateway_node(const std::vector<json>& nodes) {
  std::string best;
  for (const auto& n : nodes) {
    const json labels = n["metadata"].value("labels", json::object());
    if (labels.value(std::string(kGatewayLabel), "") != "true") continue;
    const std::string name = n["metadata"].value("name", "");
    if (best.empty() || name < best) best = name;
  }
  return best;
}

Result<fabric::NodeNetworkState> build_node_state(const NodeStateInputs& in) {
  fabric::NodeNetworkState st;
  st.cluster_id = in.self.cluster_id;
  st.node_name = in.node_name;
  st.gateway_node = gateway_node(in.nodes);
  st.pod_cidr = in.self.pod_cidr;
  st.external_cidr = in.external_cidr.value_or(kNoExternalCidr);
  for (const auto& n : in.nodes) {
    const std::string name = n["metadata"].value("name", "");
    const std::string pod = n.value("spec", json::object()).value("podCIDR", "");
    const std::string ip = internal_ip(n);
    if (pod.empty() || ip.empty()) continue;  // not scheduled for pods yet
    FED_ASSIGN_OR_RETURN(auto pod_cidr, cidr_field("Node " + name + " spec.podCIDR", pod));
    auto node_ip = net::Ipv4::parse(ip);
    if (!node_ip) return fail(ErrorCode::Invalid, "Node " + name + " InternalIP: " + ip);
    st.nodes.push_back({name, *node_ip, pod_cidr});
  }
  std::sort(st.nodes.begin(), st.nodes.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  // Without a gateway or an ExternalCIDR nothing can be routed: an empty desired state, which
  // also removes what an earlier state installed.
  if (st.gateway_node.empty() || !in.external_cidr || st.node(in.node_name) == nullptr ||
      st.node(st.gateway_node) == nullptr) {
    // With no peers the planners install nothing; the node names only need to be consistent.
    st.nodes = {fabric::ClusterNode{in.node_name, net::Ipv4{0}, in.self.pod_cidr}};
    st.gateway_node = in.node_name;
    return st;
  }
  for (const auto& peering : in.peerings) {
    if (!peering_pending_reason(peering).empty()) continue;
    const bool vxlan = peering.value("spec", json::object()).value("backend", "") == "vxlan";
    FED_ASSIGN_OR_RETURN(auto p,
                         peer_from(peering, in.nat_mappings,
                                   vxlan ? in.vxlan_tunnel_interface : in.tunnel_interface));
    st.peers.push_back(std::move(p));
  }
  std::sort(st.peers.begin(), st.peers.end(),
            [](const auto& a, const auto& b) { return a.cluster_id < b.cluster_id; });
  return st;
}

std::vector<std::string> pending_peerings(const NodeStateInputs& in) {
  std::vector<std::string> out;
  if (gateway_node(in.nodes).empty()) {
    out.push_back("no node is labelled " + std::string(kGatewayLabel) + "=true");
  }
  if (!in.external_cidr) out.push_back("the manager has not written IpamState ipam yet");
  for (const auto& peering : in.peerings) {
    const std::string why = peering_pending_reason(peering);
    if (!why.empty()) out.push_back(peering["metadata"].value("name", "") + ": " + why);
  }
  return out;
}

}  // namespace fed::federation

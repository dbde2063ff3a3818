#include "agent/node/gateway_tunnel_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "agent/node/tunnel/wg_key.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

fedapi::TunnelStatus pending(std::string message) {
  return {fedapi::TunnelState::Pending, std::move(message)};
}

fedapi::TunnelStatus error(std::string message) {
  return {fedapi::TunnelState::Error, std::move(message)};
}

// Why the fabric's state left out a ready Peering: build_node_state installs no peer at all
// until our ExternalCIDR is known and this node is scheduled for pods.
std::string not_routed_reason(const NodeStateInputs& in) {
  if (!in.external_cidr) return "waiting: the manager has not written IpamState ipam yet";
  return "waiting: node " + in.node_name + " has no InternalIP or spec.podCIDR yet";
}

// Our tunnel address as `peering` names it; nullopt when it names none.
Result<std::optional<net::Ipv4>> local_address(const json& peering, const std::string& name) {
  const std::string text =
      peering.value("spec", json::object()).value("localTunnelAddress", std::string());
  if (text.empty()) return std::optional<net::Ipv4>();
  auto a = net::Ipv4::parse(text);
  if (!a) {
    return fail(ErrorCode::Invalid, "Peering " + name +
                                        " spec.localTunnelAddress: " + a.error().message() +
                                        " (the manager allocates it from 169.254.64.0/18)");
  }
  return std::optional<net::Ipv4>(*a);
}

}  // namespace

Result<Endpoint> parse_endpoint(std::string_view text, std::string_view field) {
  const auto colon = text.rfind(':');
  auto bad = [&] {
    return fail(ErrorCode::Invalid,
                fmt::format("{} \"{}\": expected IPv4:port such as 172.31.0.2:51820 (the peer "
                            "gateway's agent publishes it in its gateway ConfigMap)",
                            field, text));
  };
  if (colon == std::string_view::npos) return bad();
  auto address = net::Ipv4::parse(text.substr(0, colon));
  const auto port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (!address || ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
      port > 65535) {
    return bad();
  }
  return Endpoint{*address, static_cast<std::uint16_t>(port)};
}

Result<GatewayTunnelConfig> derive_gateway_tunnel(const NodeStateInputs& in) {
  GatewayTunnelConfig out;
  out.gateway = !in.node_name.empty() && gateway_node(in.nodes) == in.node_name;
  if (!out.gateway) return out;
  FED_ASSIGN_OR_RETURN(const auto state, build_node_state(in));
  std::map<std::string, const fabric::Peer*> routed;  // cluster id -> the fabric's peer
  for (const auto& p : state.peers) routed[p.cluster_id] = &p;
  std::string address_from;  // the Peering that gave our address, for messages

  std::vector<const json*> peerings;
  for (const auto& p : in.peerings) peerings.push_back(&p);
  std::sort(peerings.begin(), peerings.end(), [](const json* a, const json* b) {
    return (*a)["metadata"].value("name", "") < (*b)["metadata"].value("name", "");
  });
  for (const json* p : peerings) {
    const std::string name = (*p)["metadata"].value("name", "");
    const json spec = p->value("spec", json::object());
    const std::string backend = spec.value("backend", "wireguard");
    if (backend != "wireguard" && backend != "vxlan") {
      out.waiting.push_back(
          {name, error("spec.backend \"" + backend + "\" is unknown; use wireguard or vxlan")});
      continue;
    }
    FED_ASSIGN_OR_RETURN(auto mine, local_address(*p, name));
    if (mine && out.address && *mine != *out.address) {
      return fail(ErrorCode::Invalid,
                  fmt::format("Peering {} spec.localTunnelAddress {} differs from {} in Peering "
                              "{}; a gateway has one tunnel address (check the manager's "
                              "allocation)",
                              name, mine->str(), out.address->str(), address_from));
    }
    if (mine && !out.address) {
      out.address = mine;
      address_from = name;
    }
    if (const std::string why = peering_pending_reason(*p); !why.empty()) {
      out.waiting.push_back({name, pending("waiting: " + why)});
      continue;
    }
    const std::string id = spec.value("peerClusterID", "");
    const auto it = routed.find(id);
    if (it == routed.end()) {
      out.waiting.push_back({name, pending(not_routed_reason(in))});
      continue;
    }
    auto endpoint = parse_endpoint(spec.value("gatewayEndpoint", ""),
                                   "Peering " + name + " spec.gatewayEndpoint");
    if (!endpoint) {
      out.waiting.push_back({name, error(endpoint.error().message())});
      continue;
    }
    if (backend == "vxlan") {
      out.vxlan_peers.push_back({name, {id, endpoint->address, it->second->tunnel_endpoint}});
      continue;
    }
    const std::string key = spec.value("publicKey", "");
    if (auto k = tunnel::WgKey::from_base64(key, "Peering " + name + " spec.publicKey"); !k) {
      out.waiting.push_back(
          {name, error(k.error().message() + " (the manager copies it from " + id +
                       "'s gateway ConfigMap; check that gateway's agent)")});
      continue;
    }
    TunnelPeering tp{name, {}};
    tp.peer.cluster_id = id;
    tp.peer.public_key = key;
    tp.peer.endpoint = endpoint->address;
    tp.peer.endpoint_port = endpoint->port;
    tp.peer.tunnel_address = it->second->tunnel_endpoint;
    tp.peer.ranges = {it->second->pod_cidr, it->second->external_cidr};
    out.peers.push_back(std::move(tp));
  }
  return out;
}

}  // namespace fed::federation

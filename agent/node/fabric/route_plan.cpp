#include "agent/node/fabric/route_plan.hpp"

#include <algorithm>
#include <set>

#include "agent/node/fabric/translate.hpp"

namespace fed::fabric {

namespace {

// The route to `dst` through node `to`: directly or over the overlay.
os::Route via_node(const net::Cidr& dst, const ClusterNode& to, const DatapathConfig& config,
                   const DirectNodes& direct) {
  if (auto it = direct.find(to.name); it != direct.end()) return os::Route{dst, to.ip, it->second};
  return os::Route{dst, overlay_ip(to.ip), config.vxlan_device};
}

}  // namespace

RouteSet desired_routes(const NodeNetworkState& state, const DatapathConfig& config,
                        const DirectNodes& direct) {
  RouteSet out;
  if (state.peers.empty()) return out;
  const ClusterNode* gateway = state.node(state.gateway_node);
  std::set<std::string> tunnels;
  for (const auto& peer : state.peers) {
    for (const auto& range : {peer.pod_cidr, peer.external_cidr}) {
      out.rules.push_back(os::PolicyRule{range, ""});
      if (state.is_gateway()) {
        out.routes.push_back(os::Route{range, peer.tunnel_endpoint, peer.tunnel_interface});
        tunnels.insert(peer.tunnel_interface);
      } else {
        out.routes.push_back(via_node(range, *gateway, config, direct));
      }
    }
  }
  if (state.is_gateway()) {
    for (const auto& tunnel : tunnels) out.rules.push_back(os::PolicyRule{std::nullopt, tunnel});
    for (const auto& node : state.nodes) {
      if (node.name == state.node_name) continue;
      out.routes.push_back(via_node(node.pod_cidr, node, config, direct));
    }
  }
  return out;
}

RouteChanges plan_routes(const RouteSet& desired, const RouteSet& observed) {
  RouteChanges ch;
  // Routes are keyed by destination: one route per destination in the agent's table.
  std::vector<bool> kept(observed.routes.size(), false);
  for (const auto& want : desired.routes) {
    auto it = std::find(observed.routes.begin(), observed.routes.end(), want);
    if (it != observed.routes.end() &&
        !kept[static_cast<std::size_t>(it - observed.routes.begin())]) {
      kept[static_cast<std::size_t>(it - observed.routes.begin())] = true;
    } else {
      ch.replace_routes.push_back(want);  // replaces a route to the same dst, if any
    }
  }
  for (std::size_t i = 0; i < observed.routes.size(); ++i) {
    if (kept[i]) continue;
    const auto& have = observed.routes[i];
    bool replaced = std::any_of(ch.replace_routes.begin(), ch.replace_routes.end(),
                                [&](const os::Route& r) { return r.dst == have.dst; });
    if (!replaced) ch.delete_routes.push_back(have);
  }
  // Rules are a multiset: each desired rule keeps one observed copy, the rest are stale.
  std::vector<bool> used(observed.rules.size(), false);
  for (const auto& want : desired.rules) {
    bool found = false;
    for (std::size_t i = 0; i < observed.rules.size() && !found; ++i) {
      if (!used[i] && observed.rules[i] == want) used[i] = found = true;
    }
    if (!found) ch.add_rules.push_back(want);
  }
  for (std::size_t i = 0; i < observed.rules.size(); ++i) {
    if (!used[i]) ch.delete_rules.push_back(observed.rules[i]);
  }
  return ch;
}

}  // namespace fed::fabric

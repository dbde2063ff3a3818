#include "agent/node/fabric/link_plan.hpp"

#include <algorithm>

#include "agent/node/fabric/translate.hpp"

namespace fed::fabric {
namespace {

// Elements of `a` missing from `b` (both treated as sets).
template <typename T>
std::vector<T> missing(std::vector<T> a, std::vector<T> b) {
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  std::sort(b.begin(), b.end());
  std::vector<T> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

DesiredOverlay desired_overlay(const NodeNetworkState& state, const DatapathConfig& config,
                               const DirectNodes& direct) {
  DesiredOverlay out;
  if (state.peers.empty() || state.nodes.size() < 2) return out;
  const ClusterNode* self = state.node(state.node_name);
  os::VxlanDevice dev;
  dev.name = config.vxlan_device;
  dev.vni = config.vxlan_vni;
  dev.port = config.vxlan_port;
  dev.local = self->ip;
  dev.mac = overlay_mac(self->ip);
  dev.address = overlay_ip(self->ip);
  dev.prefix_length = kOverlayPrefixLength;
  dev.mtu = config.vxlan_mtu;
  for (const auto& node : state.nodes) {
    if (node.name == state.node_name || direct.contains(node.name)) continue;
    if (!state.is_gateway() && node.name != state.gateway_node) continue;
    out.fdb.push_back(os::FdbEntry{overlay_mac(node.ip), node.ip});
    out.neighbours.push_back(os::NeighbourEntry{overlay_ip(node.ip), overlay_mac(node.ip)});
  }
  if (!out.fdb.empty()) out.device = dev;
  return out;
}

Result<LinkChanges> plan_links(const DesiredOverlay& desired,
                               const std::optional<os::VxlanState>& observed,
                               const DatapathConfig& config) {
  LinkChanges ch;
  if (observed && !observed->owned) {
    return fail(ErrorCode::Conflict,
                "link " + config.vxlan_device +
                    " exists but was not created by fed-agent; remove it or set another "
                    "overlay device name");
  }
  if (!desired.device) {
    if (observed) ch.delete_device = config.vxlan_device;
    return ch;
  }
  bool recreate = !observed || !(observed->device == *desired.device) || !observed->up;
  if (recreate) {
    if (observed) ch.delete_device = config.vxlan_device;
    ch.create_device = desired.device;
    ch.add_fdb = missing(desired.fdb, {});
    ch.add_neighbours = missing(desired.neighbours, {});
    return ch;
  }
  ch.delete_fdb = missing(observed->fdb, desired.fdb);
  ch.add_fdb = missing(desired.fdb, observed->fdb);
  ch.delete_neighbours = missing(observed->neighbours, desired.neighbours);
  ch.add_neighbours = missing(desired.neighbours, observed->neighbours);
  return ch;
}

}  // namespace fed::fabric

#include "agent/node/fabric/direct_routing.hpp"

namespace fed::fabric {

DirectNodes direct_nodes(const NodeNetworkState& state, const DatapathConfig& config,
                         const std::vector<os::ConnectedNetwork>& connected) {
  DirectNodes out;
  if (!config.direct_routing) return out;
  for (const auto& node : state.nodes) {
    if (node.name == state.node_name) continue;
    if (!state.is_gateway() && node.name != state.gateway_node) continue;
    const os::ConnectedNetwork* best = nullptr;
    for (const auto& net : connected) {
      if (net.dev == config.vxlan_device || !net.network.contains(node.ip)) continue;
      if (best == nullptr || net.network.length > best->network.length) best = &net;
    }
    if (best != nullptr) out[node.name] = best->dev;
  }
  return out;
}

}  // namespace fed::fabric

#pragma once
// Direct routing between the nodes of a cluster (--direct-routing, off by default): a node
// whose overlay peer (the gateway, or on the gateway every other node) sits on a subnet this
// node is connected to is routed to by its node IP instead of over VXLAN, like Flannel's
// DirectRouting. It saves the encapsulation, which costs 20-30 % of TCP throughput per crossing
// (docs/BENCHMARKS.md); it is off by default because a node network may drop packets whose
// addresses are pod addresses (cloud source/destination checks), which VXLAN hides.

#include <map>
#include <string>
#include <vector>

#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/fabric/node_state.hpp"
#include "agent/node/os/link_manager.hpp"

namespace fed::fabric {

// Overlay peers of this node reached directly: node name -> the link toward it.
using DirectNodes = std::map<std::string, std::string>;

// The overlay peers of `state`'s node that `connected` reaches without a router, when
// `config.direct_routing` is on (empty otherwise). The longest matching prefix picks the link.
DirectNodes direct_nodes(const NodeNetworkState& state, const DatapathConfig& config,
                         const std::vector<os::ConnectedNetwork>& connected);

}  // namespace fed::fabric

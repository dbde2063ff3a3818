#pragma once
// The node's VXLAN overlay: what the state asks for and the plan from what the kernel has.
// Workers need only the gateway as an overlay peer; the gateway needs every other node. Node
// overlay addresses and MACs derive from node IPs (translate.hpp), so nothing is exchanged.

#include <optional>
#include <vector>

#include "agent/node/fabric/datapath_config.hpp"
#include "agent/node/fabric/direct_routing.hpp"
#include "agent/node/fabric/node_state.hpp"
#include "agent/node/os/link_manager.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

struct DesiredOverlay {
  // none: the node needs no overlay (no peers, 1 node, every overlay peer reached directly)
  std::optional<os::VxlanDevice> device;
  std::vector<os::FdbEntry> fdb;
  std::vector<os::NeighbourEntry> neighbours;
};

// Applied in field order: delete the device, create it, then entries.
struct LinkChanges {
  std::optional<std::string> delete_device;
  std::optional<os::VxlanDevice> create_device;
  std::vector<os::FdbEntry> delete_fdb, add_fdb;
  std::vector<os::NeighbourEntry> delete_neighbours, add_neighbours;

  bool empty() const {
    return !delete_device && !create_device && delete_fdb.empty() && add_fdb.empty() &&
           delete_neighbours.empty() && add_neighbours.empty();
  }
};

// The overlay for every overlay peer not in `direct`; no device when none is left.
DesiredOverlay desired_overlay(const NodeNetworkState& state, const DatapathConfig& config,
                               const DirectNodes& direct = {});

// Plans from `observed` (the device named in `config`, if any) to `desired`. A device of that
// name without the agent's marker is a Conflict: the agent never takes over foreign links.
Result<LinkChanges> plan_links(const DesiredOverlay& desired,
                               const std::optional<os::VxlanState>& observed,
                               const DatapathConfig& config);

}  // namespace fed::fabric

#include "agent/node/fabric/node_state.hpp"

namespace fed::fabric {

const ClusterNode* NodeNetworkState::node(const std::string& name) const {
  for (const auto& n : nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

}  // namespace fed::fabric

#pragma once
// The name of the virtual Node that stands for a member on the host (spec 001 §1.2): the
// manager registers it, `unjoin` drains it.

#include <string>
#include <string_view>

namespace fed::offload {

inline constexpr std::string_view kVirtualNodePrefix = "kubectl-fed-";

// "kubectl-fed-<cluster id>".
inline std::string virtual_node_name(std::string_view cluster_id) {
  return std::string(kVirtualNodePrefix) + std::string(cluster_id);
}

}  // namespace fed::offload

#pragma once
// DatapathConfig: the kernel identifiers the agent owns on a node. They are agent settings,
// not desired state: uninstall must find the same objects without reading any state.

#include <cstdint>
#include <string>

namespace fed::fabric {

struct DatapathConfig {
  std::uint32_t route_table = 18960;   // the agent's routing table
  std::uint32_t rule_priority = 1960;  // priority of every policy rule the agent adds
  std::string vxlan_device = "fed.vxlan";
  std::uint32_t vxlan_vni = 18960;
  std::uint16_t vxlan_port = 4789;
  // The overlay's MTU: the underlay's (1500 assumed) minus the 50 bytes of VXLAN over IPv4, so
  // encapsulated frames are never fragmented.
  std::uint32_t vxlan_mtu = 1450;
  // Reach on-link nodes without the overlay (fabric/direct_routing.hpp).
  bool direct_routing = false;
};

}  // namespace fed::fabric

#include "agent/node/fabric/translate.hpp"

#include "agent/node/os/link_manager.hpp"

namespace fed::fabric {

net::Ipv4 first_host(const net::Cidr& cidr) {
  if (cidr.length >= 31) return cidr.network;
  return net::Ipv4{cidr.network.value + 1};
}

net::Ipv4 overlay_ip(net::Ipv4 node_ip) {
  return net::Ipv4{(std::uint32_t{240} << 24) | (node_ip.value & 0x00ffffffu)};
}

net::MacAddr overlay_mac(net::Ipv4 node_ip) {
  net::MacAddr mac;
  mac.bytes = {os::kOwnedMacPrefix[0],
               os::kOwnedMacPrefix[1],
               static_cast<std::uint8_t>(node_ip.value >> 24),
               static_cast<std::uint8_t>(node_ip.value >> 16),
               static_cast<std::uint8_t>(node_ip.value >> 8),
               static_cast<std::uint8_t>(node_ip.value)};
  return mac;
}

}  // namespace fed::fabric

#include "fabric/translate.hpp"

#include "os/link_manager.hpp"

namespace fed::fabric {

os::Ipv4 map_ip_to_network(os::Ipv4 ip, const std::optional<os::Cidr>& network) {
  if (!network) return ip;
  std::uint32_t m = network->mask();
  return os::Ipv4{(network->network.value & m) | (ip.value & ~m)};
}

os::Ipv4 first_host(const os::Cidr& cidr) {
  if (cidr.length >= 31) return cidr.network;
  return os::Ipv4{cidr.network.value + 1};
}

os::Ipv4 overlay_ip(os::Ipv4 node_ip) {
  return os::Ipv4{(std::uint32_t{240} << 24) | (node_ip.value & 0x00ffffffu)};
}

os::MacAddr overlay_mac(os::Ipv4 node_ip) {
  os::MacAddr mac;
  mac.bytes = {os::kOwnedMacPrefix[0],
               os::kOwnedMacPrefix[1],
               static_cast<std::uint8_t>(node_ip.value >> 24),
               static_cast<std::uint8_t>(node_ip.value >> 16),
               static_cast<std::uint8_t>(node_ip.value >> 8),
               static_cast<std::uint8_t>(node_ip.value)};
  return mac;
}

}  // namespace fed::fabric

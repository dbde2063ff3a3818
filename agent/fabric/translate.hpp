#pragma once
// Pure address arithmetic of the overlay (spec 002 §1.4): MapIPToNetwork, and the addresses
// derived from a node IP so that nodes need not exchange overlay addresses or MACs.

#include <optional>

#include "os/net_types.hpp"

namespace fed::fabric {

// MapIPToNetwork: the first `network.length` bits of `network`, the rest of `ip`
// (the iptables NETMAP mapping). nullopt network ("None") keeps `ip`.
os::Ipv4 map_ip_to_network(os::Ipv4 ip, const std::optional<os::Cidr>& network);

// The first usable address of a prefix (network + 1; the network itself for /31 and /32).
os::Ipv4 first_host(const os::Cidr& cidr);

// Overlay address of a node: 240.b.c.d for node IP a.b.c.d, on a /8.
os::Ipv4 overlay_ip(os::Ipv4 node_ip);
inline constexpr std::uint8_t kOverlayPrefixLength = 8;

// VXLAN device MAC of a node: 02:fe:a:b:c:d for node IP a.b.c.d (os::kOwnedMacPrefix).
os::MacAddr overlay_mac(os::Ipv4 node_ip);

}  // namespace fed::fabric

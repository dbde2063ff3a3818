#pragma once
// Pure address arithmetic of the overlay (spec 002 §1.4): MapIPToNetwork, and the addresses
// derived from a node IP so that nodes need not exchange overlay addresses or MACs.

#include <optional>

#include "shared/net/net_types.hpp"

namespace fed::fabric {

// MapIPToNetwork (shared/net): the datapath's planners use it by this name too.
using net::map_ip_to_network;

// The first usable address of a prefix (network + 1; the network itself for /31 and /32).
net::Ipv4 first_host(const net::Cidr& cidr);

// Overlay address of a node: 240.b.c.d for node IP a.b.c.d, on a /8.
net::Ipv4 overlay_ip(net::Ipv4 node_ip);
inline constexpr std::uint8_t kOverlayPrefixLength = 8;

// VXLAN device MAC of a node: 02:fe:a:b:c:d for node IP a.b.c.d (os::kOwnedMacPrefix).
net::MacAddr overlay_mac(net::Ipv4 node_ip);

}  // namespace fed::fabric

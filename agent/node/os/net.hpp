#pragma once
// The kernel interfaces speak shared/net's IPv4 values (addresses, prefixes, MACs); inside
// fed::os they go by their plain names.

#include "shared/net/net_types.hpp"

namespace fed::os {

using net::Cidr;
using net::Ipv4;
using net::MacAddr;

}  // namespace fed::os

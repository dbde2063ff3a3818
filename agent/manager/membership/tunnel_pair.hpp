#pragma once
// The tunnel of a peering as the manager reports it on the FederatedCluster or DirectPeering:
// one state from the two gateways' own reports in their Peerings. Pure.

#include <string>

#include "shared/fedapi/peering.hpp"

namespace fed::federation {

// The tunnel between two gateways from each side's report (`a` from cluster `a_id`'s Peering):
// Error when either says so, else the state of the side further behind; the message quotes each
// side that is not Connected in its gateway's own words, which name the hop ("c1: no handshake
// with c3's gateway 172.31.0.3:51820 yet; check ..."), or says the gateways have not reported.
fedapi::TunnelStatus pair_tunnel_status(const std::string& a_id, const fedapi::TunnelStatus& a,
                                        const std::string& b_id, const fedapi::TunnelStatus& b);

}  // namespace fed::federation

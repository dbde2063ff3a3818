// The tunnel of a peering from its two gateways' reports (agent/manager/membership/tunnel_pair).
#include "agent/manager/membership/tunnel_pair.hpp"

#include <doctest/doctest.h>

namespace fed::federation {

TEST_CASE("a pair's tunnel: the side behind, in its gateway's own words") {
  using fedapi::TunnelState;
  using fedapi::TunnelStatus;
  const TunnelStatus up{TunnelState::Connected, ""};
  const TunnelStatus waiting{TunnelState::Connecting,
                             "no handshake with c3's gateway 172.31.0.3:51820 yet; check UDP"};
  const TunnelStatus silent{TunnelState::Pending, ""};
  const TunnelStatus broken{TunnelState::Error, "tunnel fed.wg on gateway node node1: gone"};

  CHECK(pair_tunnel_status("c1", up, "c3", up) == TunnelStatus{TunnelState::Connected, ""});
  CHECK(pair_tunnel_status("c1", waiting, "c3", up) ==
        TunnelStatus{TunnelState::Connecting,
                     "c1: no handshake with c3's gateway 172.31.0.3:51820 yet; check UDP"});
  // Both sides: each named; an error on one side makes the pair's state Error.
  const auto both = pair_tunnel_status("c1", waiting, "c3", broken);
  CHECK(both.state == TunnelState::Error);
  CHECK(both.message ==
        "c1: no handshake with c3's gateway 172.31.0.3:51820 yet; check UDP; c3: tunnel fed.wg "
        "on gateway node node1: gone");
  // Gateways that have not reported anything yet.
  CHECK(pair_tunnel_status("c1", silent, "c3", up) ==
        TunnelStatus{TunnelState::Pending,
                     "waiting for the gateways of c1 and c3 to report the tunnel connected"});
}

}  // namespace fed::federation

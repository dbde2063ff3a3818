#include "agent/manager/membership/tunnel_pair.hpp"

#include <algorithm>
#include <vector>

#include "shared/util/strings.hpp"

namespace fed::federation {

fedapi::TunnelStatus pair_tunnel_status(const std::string& a_id, const fedapi::TunnelStatus& a,
                                        const std::string& b_id, const fedapi::TunnelStatus& b) {
  using fedapi::TunnelState;
  fedapi::TunnelStatus out;
  out.state = a.state == TunnelState::Error || b.state == TunnelState::Error
                  ? TunnelState::Error
                  : std::min(a.state, b.state);
  if (out.state == TunnelState::Connected) return out;
  std::vector<std::string> sides;
  for (const auto* side : {&a, &b}) {
    if (side->state == TunnelState::Connected || side->message.empty()) continue;
    sides.push_back((side == &a ? a_id : b_id) + ": " + side->message);
  }
  out.message = sides.empty() ? "waiting for the gateways of " + a_id + " and " + b_id +
                                    " to report the tunnel connected"
                              : util::join(sides, "; ");
  return out;
}

}  // namespace fed::federation

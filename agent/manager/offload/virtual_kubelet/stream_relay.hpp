#pragma once
// Copies bytes both ways between a taken-over kubelet API connection (the API server's side of
// `kubectl exec`) and the upgraded connection to the member's API server, until either side
// closes or the server stops. Protocol-blind: SPDY frames pass through unread.

#include <cstddef>

#include "shared/http/message.hpp"
#include "shared/kube/upgrade_stream.hpp"

namespace fed::offload {

struct RelayTotals {
  std::size_t to_member = 0, from_member = 0;  // bytes
};

RelayTotals relay(http::TakenConnection& caller, kube::UpgradeStream& member);

}  // namespace fed::offload

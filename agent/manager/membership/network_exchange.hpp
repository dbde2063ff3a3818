#pragma once
// The network exchange of one peering (spec 002 §2.5), run by the manager for both sides at
// once: each side's IPAM keeps or remaps the other's PodCIDR and ExternalCIDR, then learns how
// the other side sees its own networks. Idempotent: running it again changes nothing.

#include <string_view>

#include "agent/manager/ipam/ipam.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

struct ExchangeSide {
  fabric::ipam::Ipam& ipam;
  std::string_view cluster_id;
  fabric::ipam::LocalNetworks local;
};

struct ExchangeResult {
  fabric::ipam::PeerSubnets a_view_of_b;  // b's networks as used in a
  fabric::ipam::PeerSubnets b_view_of_a;  // a's networks as used in b
};

Result<ExchangeResult> exchange_networks(const ExchangeSide& a, const ExchangeSide& b);

}  // namespace fed::federation

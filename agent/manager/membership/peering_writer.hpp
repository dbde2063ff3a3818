#pragma once
// Writes one side's Peering (spec by server-side apply, the manager's status fields by a merge
// patch) and returns the tunnel state that side's gateway agent reported in it. Shared by the
// membership (host <-> member) and direct-peering (member <-> member) controllers.

#include "agent/manager/membership/peering_builder.hpp"
#include "shared/fedapi/peering.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

inline constexpr std::string_view kFieldManager = "fed-manager";

Result<fedapi::TunnelStatus> apply_peering(kube::DynamicClient& client, const PeeringSide& side);

}  // namespace fed::federation

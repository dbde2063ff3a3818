#pragma once
// Whether the host still reaches a member's pods (issue 29, docs/DATAPATH.md "A member lost"),
// and what a lost member's pods look like on the host meanwhile. The host gateway's agent
// reports its Peering with the member Lost within seconds of the member's gateway going silent
// over the tunnel (agent/node/tunnel/probe_history.hpp); its pods on the host then become not
// Ready, as a kubelet marks the pods of a node it can no longer vouch for, so the EndpointSlice
// controller takes them out of every Service while their replicas elsewhere keep serving.
// Nothing is deleted: when the member answers again the pods' own statuses come back. Pure.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fed::offload {

// The reason of the Ready and ContainersReady conditions of a lost member's pods.
inline constexpr std::string_view kMemberUnreachableReason = "MemberUnreachable";

// Why the host does not reach the pods of the member its Peering `host_peering` (the host's
// Peering with that member) is with: its tunnel's message while status.tunnel.state is Lost;
// nullopt otherwise (no Peering is not a loss: the member may be joining).
std::optional<std::string> unreachable_reason(const nlohmann::json* host_peering);

// The reason of those conditions while a pod's twin stops on its member (evicted by a drain
// there, deleted by hand) and before a new twin replaces it.
inline constexpr std::string_view kTwinStoppingReason = "TwinStopping";

// `status` of a host pod that must not receive traffic: Ready and ContainersReady False with
// `reason` and `why` (their transition time `now` when they change; a condition already saying
// so is left as it is), every container not ready. Phase and the rest stay: the pod may well
// still run there.
nlohmann::json not_ready_pod_status(nlohmann::json status, std::string_view reason,
                                    const std::string& why, const std::string& now);

// The same for a pod whose member is lost (kMemberUnreachableReason).
inline nlohmann::json unreachable_pod_status(nlohmann::json status, const std::string& why,
                                             const std::string& now) {
  return not_ready_pod_status(std::move(status), kMemberUnreachableReason, why, now);
}

}  // namespace fed::offload

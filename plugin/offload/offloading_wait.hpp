#pragma once
// Reading a NamespaceOffloading back, and `offload --wait` / `unoffload --wait`: what counts as
// done, what ends the wait early (a refused spec, a host that stopped leading) and how the wait
// reports progress.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/cli/output.hpp"
#include "plugin/connect/host_connection.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/kube/resource_ref.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// NamespaceOffloading `offloading` in namespace `ns`.
kube::ResourceRef offloading_ref(const std::string& ns);

// The object's status as the API types read it; empty when it has none or cannot be read.
fedapi::NamespaceOffloadingStatus status_of(const nlohmann::json& offloading);

// Its offloadingPhase's name, "" when it has none.
std::string phase_of(const nlohmann::json& offloading);

// "c2: Ready, c3: CreationLoopBackOff ..." from the per-cluster conditions.
std::string clusters_summary(const nlohmann::json& offloading);

// What `offload --wait` waits for: offloadingPhase Ready, written by the controller for the
// spec as it is now (status.observedGeneration >= metadata.generation). A Ready it wrote before
// it saw the latest spec (an offloading widened from c3 to c2 and c3) does not count. Nor does
// one while a member no longer selected still has its replica (OffloadingRequired False): that
// member's pods are still moving off it (docs/OFFLOAD.md "Leaving").
bool ready_for_current_spec(const nlohmann::json& offloading);

// Why the manager refused `offloading`'s current spec (its Accepted condition False for this
// generation: "SpecRefused: ..."), nullopt when it did not. Pure.
std::optional<std::string> refusal_of(const nlohmann::json& offloading);

// Polls the NamespaceOffloading of `ns` on `host` until `done(it, or null when gone)`, at most
// `timeout`. Ends at once when the manager refused its spec (Invalid) or the host stopped leading
// (Unavailable, naming the new leader), since only the leader serves it.
Status wait_for_offloading(const HostConnection& host, const std::string& ns,
                           const std::function<bool(const nlohmann::json&)>& done,
                           std::chrono::milliseconds timeout, const std::string& what, Output& out);

}  // namespace fed::plugin

#pragma once
// The controller of a pod (its ReplicaSet or StatefulSet) and whether it is whole again: what
// anyone who takes a pod away (a drain, `unjoin`, a member leaving an offloading's selection)
// waits for before taking the next one, so that the workload never runs short twice.

#include <compare>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

struct PodOwner {
  std::string kind;  // ReplicaSet, StatefulSet, Job, ...
  std::string ns;
  std::string name;
  auto operator<=>(const PodOwner&) const = default;
};

// The ownerReference of `pod` marked controller, if any.
std::optional<PodOwner> controller_of(const nlohmann::json& pod);

// Why `owner` is not whole yet ("ReplicaSet shop/web-5d8 (1/2 ready)"), or nullopt when it has
// as many ready replicas as it wants, is gone, or is of a kind that is not waited for (only
// ReplicaSets and StatefulSets replace their pods).
Result<std::optional<std::string>> owner_short_of_ready(DynamicClient& client,
                                                        const PodOwner& owner);

}  // namespace fed::kube

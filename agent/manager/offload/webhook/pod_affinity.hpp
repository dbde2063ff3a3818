#pragma once
// The offloading webhook's pod mutation as a pure function (spec 001 §2.4.5): from the
// namespace's podOffloadingStrategy and clusterSelector, the required node affinity the pod
// must get and whether it tolerates the virtual-node taint, intersected with the pod's own
// required nodeSelectorTerms, as an RFC 6902 JSON patch for the AdmissionReview response.
//   Local          -> kubectl-fed.io/type NotIn [virtual-node]; no toleration (a pod that
//                     tolerates every taint still stays local)
//   Remote         -> every clusterSelector term AND kubectl-fed.io/type In [virtual-node]
//   LocalAndRemote -> the clusterSelector terms OR kubectl-fed.io/type NotIn [virtual-node]
// The pod's terms and these are ORed lists, so their intersection is the cross product: each
// pod term ANDed with each enforced term (user terms can only narrow the placement).

#include <nlohmann/json.hpp>

#include "shared/fedapi/node_selector.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

// The terms the strategy enforces over `cluster_selector` (already defaulted).
fedapi::NodeSelector enforced_node_selector(fedapi::PodOffloadingStrategy strategy,
                                            const fedapi::NodeSelector& cluster_selector);

// Whether pods under `strategy` get the virtual-node toleration (all but Local).
bool tolerates_virtual_nodes(fedapi::PodOffloadingStrategy strategy);

// The toleration of the virtual-node taint, as a core/v1 Toleration.
nlohmann::json virtual_node_toleration();

// Every term of `user` ANDed with every term of `enforced` (requirements deduplicated, equal
// terms once). Empty user terms match nothing and are dropped; Invalid when all are empty.
Result<fedapi::NodeSelector> intersect(const fedapi::NodeSelector& user,
                                       const fedapi::NodeSelector& enforced);

// The JSON patch (a list of operations, possibly empty) that applies `strategy` and
// `cluster_selector` to `pod` (a core/v1 Pod). Invalid naming the field when the pod's own
// required node affinity cannot be read or matches no node.
Result<nlohmann::json> pod_offloading_patch(fedapi::PodOffloadingStrategy strategy,
                                            const fedapi::NodeSelector& cluster_selector,
                                            const nlohmann::json& pod);

}  // namespace fed::offload

#pragma once
// The OffloadingStatus controller's arithmetic (spec 001 §2.4.2): per member cluster, the
// Ready / OffloadingRequired conditions of a namespace's replica derived from that cluster's
// NamespaceMap, and the NamespaceOffloading's offloadingPhase derived from all of them. Pure.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shared/fedapi/condition.hpp"
#include "shared/fedapi/namespace_map.hpp"
#include "shared/fedapi/offloading.hpp"

namespace fed::offload {

// What one cluster's NamespaceMap says about one local namespace.
struct ClusterMapping {
  bool desired = false;                       // in spec.desiredMapping
  std::optional<fedapi::MappingPhase> phase;  // status.currentMapping[ns].phase, if any
  std::string remote_namespace;               // for messages
};

// The conditions of the namespace in `cluster_id`: OffloadingRequired (True while desired,
// reason ClusterSelected / ClusterNotSelected) and, once the NamespaceMap reports the replica,
// Ready (Accepted -> True RemoteNamespaceCreated; CreationLoopBackOff -> False; Terminating ->
// False TerminatingNamespace). `previous` keeps lastTransitionTime of unchanged conditions.
std::vector<fedapi::Condition> remote_conditions(const ClusterMapping& mapping,
                                                 const std::string& cluster_id,
                                                 std::vector<fedapi::Condition> previous,
                                                 const std::string& now);

enum class Deleting { No, Yes };

// The phase: deleting -> Terminating; some Ready not True (False, Unknown: failed) ->
// AllFailed when none is True and no selected member is still to report, else SomeFailed;
// a selected member (OffloadingRequired True) still without Ready -> InProgress; no cluster
// with a Ready condition -> NoClusterSelected; else Ready. Without members still to report this
// is the spec's order; with them, the spec's rule would say Ready before every replica exists.
fedapi::OffloadingPhase offloading_phase(
    const std::map<std::string, std::vector<fedapi::Condition>>& remote_namespaces_conditions,
    Deleting deleting);

}  // namespace fed::offload

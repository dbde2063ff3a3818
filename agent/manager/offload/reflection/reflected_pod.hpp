#pragma once
// A pod bound to a virtual node and its twin on the member (spec 001 §1.2, spec 002 §2.3), as
// pure functions: the twin built from the host pod, and the host pod's status built from the
// twin's. The manager's pod reflector (pod_reflector.hpp) applies them.
//
// What the twin does not take from the host pod, and why:
//   spec.nodeName, nodeSelector, nodeAffinity  name the virtual node's labels, not the member's
//   the virtual-node toleration                 no member node has the taint
//   priority, priorityClassName, preemption     the class may not exist there; the member's
//                                              Priority admission refuses a bare priority
//   schedulerName                               the member's default scheduler places it
//   the host's service-account token volume     a host token means nothing to the member; the
//   (kube-api-access-*) and serviceAccountName  member mounts its own for the twin namespace's
//                                              default ServiceAccount
//   ownerReferences                             they name host objects
// Labels and annotations are kept, plus the origin labels (so the reflector's watch on the
// member selects its twins) and the host pod's uid (a host pod recreated under the same name,
// e.g. by a StatefulSet, gets a new twin).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fed::offload {

// On every twin: the uid of the host pod it stands for.
inline constexpr std::string_view kOriginUidAnnotation = "kubectl-fed.io/origin-pod-uid";

struct TwinTarget {
  std::string host_cluster_id;  // origin-cluster label
  std::string host_namespace;   // origin-namespace label
  std::string remote_namespace;
};

// The twin of `host_pod` (a core/v1 Pod) in target.remote_namespace.
nlohmann::json twin_pod(const nlohmann::json& host_pod, const TwinTarget& target);

// The host pod uid `twin` was made for ("" when it is not a twin).
std::string twin_origin_uid(const nlohmann::json& twin);

// How the host reaches a member pod IP (its remap of the member's PodCIDR); nullopt when the
// address cannot be translated, and then it is left out.
using PodIpTranslator = std::function<std::optional<std::string>(std::string_view member_ip)>;

// The host pod's status from the twin's: phase, conditions, message and reason, start time and
// container states as they are; podIP and podIPs translated to the host's view; hostIP left
// out (the virtual node has none). `host_status` (the host pod's current status) gives
// nominatedNodeName, which the member does not know, and the QoS class, which is the host's
// (immutable, and the twin's may differ under the member's LimitRange).
nlohmann::json host_pod_status(const nlohmann::json& twin, const nlohmann::json& host_status,
                               const PodIpTranslator& translate);

}  // namespace fed::offload

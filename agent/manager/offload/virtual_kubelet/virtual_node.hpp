#pragma once
// The virtual Node that stands for a member cluster on the host (spec 001 §1.2, §2.1), and its
// heartbeat Lease: built from the FederatedCluster as plain JSON objects for the API server.
// Name kubectl-fed-<cluster id>; labels = the member's clusterLabels, then the reserved ones
// (kubectl-fed.io/type=virtual-node, kubectl-fed.io/cluster-id, kubernetes.io/hostname,
// app.kubernetes.io/part-of), which win over clusterLabels of the same key; the one
// virtual-node taint (NoExecute); capacity = allocatable = the offered cpu and memory (0 when
// not offered) and kDefaultPods pods; Ready only while the member's peering and network are
// Ready. Pure.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/fedapi/federated_cluster.hpp"
#include "shared/offload/virtual_node_name.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

inline constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";
// As the kubelet's: the node lifecycle controller waits this long after the last renewal.
inline constexpr std::int64_t kLeaseDurationSeconds = 40;
// The pods a virtual node accepts (the kubelet's default maxPods); the scheduler needs one.
inline constexpr std::string_view kDefaultPods = "110";

// Whether the virtual node is Ready, and why (the Node's Ready condition).
struct Readiness {
  bool ready = false;
  std::string reason;   // MemberReady, MemberLeaving, or the failing condition's reason
  std::string message;  // for people: what is not ready yet

  friend bool operator==(const Readiness&, const Readiness&) = default;
};

enum class Leaving { No, Yes };

// Where the API server reaches the node's kubelet API: the manager's virtual kubelet
// (virtual_kubelet.hpp), published as the node's InternalIP and kubelet port.
struct KubeletEndpoint {
  std::string address;
  std::uint16_t port = 0;
  friend bool operator==(const KubeletEndpoint&, const KubeletEndpoint&) = default;
};

// Ready when the FederatedCluster's NetworkReady and Ready conditions are both True (Ready is
// the membership controller's "networks exchanged and tunnel connected") and it is not
// being unjoined.
Readiness readiness(const fedapi::FederatedClusterStatus& status, Leaving leaving);

// The Node (apiVersion v1, kind Node, metadata, spec, status). Conditions: Ready as above and
// MemoryPressure/DiskPressure/PIDPressure False, heartbeat `now`; a condition whose status did
// not change keeps its lastTransitionTime from `previous` (the current Node, or null). Addresses
// and daemonEndpoints name `kubelet` (only an InternalIP: the API server would try a Hostname
// first, and no DNS knows it), and are empty / port 0 without one. Invalid naming
// spec.offered.cpu/memory when an offered quantity does not parse.
Result<nlohmann::json> virtual_node(const fedapi::FederatedClusterSpec& spec,
                                    const Readiness& readiness, const nlohmann::json& previous,
                                    std::chrono::system_clock::time_point now,
                                    const std::optional<KubeletEndpoint>& kubelet = std::nullopt);

// The node's heartbeat: Lease <node> in kube-node-lease, held by the node, renewed `now`,
// owned by the Node (uid) so it goes with it.
nlohmann::json node_lease(std::string_view node_name, std::string_view node_uid,
                          std::chrono::system_clock::time_point now);

// A MicroTime as the API writes it: "2026-11-24T15:11:43.123456Z".
std::string format_micro_time(std::chrono::system_clock::time_point t);

}  // namespace fed::offload

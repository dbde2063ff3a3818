#pragma once
// The NamespaceOffloading and OffloadingStatus controllers of spec 001 §2.4.2, as one
// reconciler keyed by the offloaded namespace (the object is always named `offloading`):
//  - selects the virtual nodes its clusterSelector matches and writes, in each member's
//    NamespaceMap, desiredMapping[ns] = the remote name (removing it where not selected, once
//    the host's pods there moved elsewhere: replica_departure.hpp);
//  - derives status.remoteNamespacesConditions and offloadingPhase from the NamespaceMaps'
//    currentMapping (offloading_phase.hpp), re-evaluated whenever a virtual node or a
//    NamespaceMap changes, not on a timer;
//  - deletion is ordered (§6.1.3): a finalizer holds the object in Terminating while the
//    entries leave every NamespaceMap and the NamespaceMap controller deletes the replicas, and
//    goes once no NamespaceMap reports one.
// A namespace labelled kubectl-fed.io/enabled=true gets a default NamespaceOffloading.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/namespaces/replica_departure.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/event_recorder.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::offload {

inline constexpr std::string_view kOffloadingName = fedapi::kNamespaceOffloadingName;
inline constexpr std::string_view kOffloadingFinalizer = "kubectl-fed.io/namespace-offloading";
using fedapi::kEnabledLabel;

struct OffloadingInformers {
  kube::Informer& offloadings;     // NamespaceOffloadings, every namespace
  kube::Informer& namespace_maps;  // NamespaceMaps (one per member)
  kube::Informer& virtual_nodes;   // Nodes labelled kubectl-fed.io/type=virtual-node
  kube::Informer& namespaces;      // Namespaces labelled kubectl-fed.io/enabled=true
};

class OffloadingReconciler final : public kube::Reconciler {
 public:
  // `events` (may be null) gets a Warning SpecRefused on a NamespaceOffloading whose spec cannot
  // be offloaded, so `kubectl describe` says why nothing happens.
  OffloadingReconciler(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
                       OffloadingInformers informers, kube::EventRecorder* events = nullptr);

  // Requests are namespace names (cluster-scoped keys).
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // Event mappers: a NamespaceOffloading or a Namespace → its namespace; a NamespaceMap → the
  // namespaces whose entry (desired or current) changed since the last version seen — not all
  // it holds, which made every write to a map of N entries cost N reconciles (E2); a virtual
  // node → every offloaded namespace.
  static std::vector<kube::Request> namespace_of(const nlohmann::json& object);
  std::vector<kube::Request> namespaces_changed_in_map(const nlohmann::json& namespace_map);
  std::vector<kube::Request> every_offloading(const nlohmann::json& ignored) const;

 private:
  // Writes desiredMapping[ns] = remote (or removes it: remote empty) in member `id`'s map.
  Status set_desired(const std::string& cluster_id, const std::string& ns,
                     const std::string& remote);
  Status report(const nlohmann::json& offloading, fedapi::NamespaceOffloadingStatus status);
  Status ensure_default_offloading(const std::string& ns);

  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;
  OffloadingInformers in_;
  kube::EventRecorder* events_;
  ReplicaDeparture departure_;
  std::mutex seen_mu_;
  // Per member, per namespace: the desired and current entries of the map version last seen.
  std::map<std::string, std::map<std::string, nlohmann::json>> seen_entries_;
};

}  // namespace fed::offload

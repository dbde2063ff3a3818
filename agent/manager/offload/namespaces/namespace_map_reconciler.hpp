#pragma once
// The NamespaceMap controller of spec 001 §2.4.2: for member M's NamespaceMap on the host, makes
// every desiredMapping entry exist as a namespace on M (created through the federation's
// identity there, labelled as the federation's and with its origin), deletes the replicas no
// longer desired, and reports each in status.currentMapping — Accepted, CreationLoopBackOff
// (creating fails, or the name is taken by a namespace that is not ours: never adopted, never
// deleted) or Terminating. Each replica gets the RoleBinding that lets the federation reflect
// pods into it. It looks again every kRecheck, so a replica deleted by hand on the
// member comes back.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/namespaces/fresh_replicas.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::offload {

inline constexpr std::chrono::seconds kRecheck{15};
// On every replica: the host cluster it serves and the host namespace it stands for.
inline constexpr std::string_view kOriginClusterLabel = "kubectl-fed.io/origin-cluster";
inline constexpr std::string_view kOriginNamespaceLabel = "kubectl-fed.io/origin-namespace";

// The labels of what the federation makes on a member for host namespace `host_namespace`:
// part-of kubectl-fed and the two origin labels (replica namespaces, twin Services and slices).
nlohmann::json origin_labels(std::string_view host_cluster_id, std::string_view host_namespace);

// In every replica, the federation's identity on the member (ServiceAccount
// kFederationServiceAccount in kubectl-fed-system) is bound to ClusterRole kReplicaRole, which
// lets it run and watch the twins of reflected pods there — and nowhere else.
inline constexpr std::string_view kFederationServiceAccount = "fed-federation";
inline constexpr std::string_view kReplicaRole = "kubectl-fed:federation-replica";

// The API client of a member, by cluster id (Unavailable while it is not peered).
using MemberClient =
    std::function<Result<std::shared_ptr<kube::DynamicClient>>(const std::string&)>;

class NamespaceMapReconciler final : public kube::Reconciler {
 public:
  NamespaceMapReconciler(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
                         kube::Informer& namespace_maps, MemberClient member_client,
                         FreshReplicas& fresh);

  // Requests are NamespaceMap names (= member cluster ids).
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  // Whether member `id`'s replicas are due for a full check (their RoleBindings too); at most
  // every kRecheck, so that the reconciles a burst of offloadings causes stay cheap.
  bool full_check_due(const std::string& id);

  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;
  kube::Informer& maps_;
  MemberClient member_client_;
  FreshReplicas& fresh_;  // the replicas it creates are marked there
  std::mutex mu_;
  std::map<std::string, std::chrono::steady_clock::time_point> last_full_check_;
};

}  // namespace fed::offload

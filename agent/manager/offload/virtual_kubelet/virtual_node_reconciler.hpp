#pragma once
// The manager's virtual-node controller (spec 001 §1.2, §2.1): for every member FederatedCluster
// on the host, a Node kubectl-fed-<id> (built by virtual_node.hpp) that the scheduler can bind
// opted-in pods to, kept in step with the member's labels, offer and readiness, and a Lease in
// kube-node-lease renewed every kRenewInterval as the kubelet renews its own, so the node
// lifecycle controller treats the node as alive exactly while this manager is. The Node and its
// Lease go when the member is unjoined (the FederatedCluster is deleting or gone). So does the
// member's NamespaceMap (spec 001 §2.4.1: one per virtual node), which this controller creates.
//
// Requests are cluster ids (the FederatedCluster's name); Node events map back through the
// cluster-id label, so a virtual node deleted or edited by hand is restored.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/virtual_kubelet/virtual_node.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::offload {

// The kubelet's default nodeLeaseDurationSeconds / 4.
inline constexpr std::chrono::seconds kRenewInterval{10};
// A Node status the kubelet would not change is still rewritten this often (its heartbeat).
inline constexpr std::chrono::seconds kStatusRefresh{60};

// The virtual kubelet's endpoint while it serves (nullopt otherwise); checked on every pass.
using KubeletEndpointSource = std::function<std::optional<KubeletEndpoint>()>;

class VirtualNodeReconciler final : public kube::Reconciler {
 public:
  // `clusters`: the host's FederatedClusters; `nodes`: the host's Nodes labelled
  // kubectl-fed.io/type=virtual-node (virtual_node_selector()); `namespace_maps`: the
  // NamespaceMaps, one per virtual node, which this controller creates and removes with it.
  // `kubelet`: where the nodes' kubelet API is served (none: the nodes publish no address).
  VirtualNodeReconciler(std::shared_ptr<kube::DynamicClient> host, kube::Informer& clusters,
                        kube::Informer& nodes, kube::Informer& namespace_maps,
                        KubeletEndpointSource kubelet = {});

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // The label selector of the `nodes` informer.
  static std::string virtual_node_selector();
  // Maps a virtual Node's event to its member's request.
  static std::vector<kube::Request> member_of(const nlohmann::json& node);
  // Maps a NamespaceMap's event (a deleted one is created again) to its member's request.
  static std::vector<kube::Request> member_of_map(const nlohmann::json& namespace_map);

 private:
  Status remove(const std::string& cluster_id);
  // Creates the Node or brings its labels, taint and status to `desired`; returns its uid.
  Result<std::string> ensure_node(const nlohmann::json& desired, const nlohmann::json* current);
  Status renew_lease(const std::string& node, const std::string& uid);
  // Renews node's Lease when it is due (or `now_due`); returns how long until it is next due.
  Result<std::chrono::milliseconds> renew_lease_when_due(const std::string& node,
                                                         const std::string& uid, bool now_due);
  Status ensure_namespace_map(const std::string& cluster_id);

  std::shared_ptr<kube::DynamicClient> host_;
  kube::Informer& clusters_;
  kube::Informer& nodes_;
  kube::Informer& namespace_maps_;
  KubeletEndpointSource kubelet_;
  // When each node's Lease is next due, as this process renews it. Passes come on every
  // NamespaceMap and Node event too (an offloading to 50 members brings a hundred), and a
  // renewal per pass was a write to the host's etcd each time.
  std::mutex renewal_mu_;
  std::map<std::string, std::chrono::steady_clock::time_point> next_renewal_;
};

}  // namespace fed::offload

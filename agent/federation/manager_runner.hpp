#pragma once
// `fed-agent manager`: the federation controllers on the host cluster — membership
// (FederatedCluster → IPAM on both sides, Peerings, status), endpoint mappings, direct peerings
// virtual nodes, namespace offloading, reflection and deployment replication.

#include <atomic>
#include <memory>
#include <set>
#include <string>

#include "federation/cluster_ipam.hpp"
#include "federation/direct_peering_reconciler.hpp"
#include "federation/endpoint_mapping_reconciler.hpp"
#include "federation/membership_reconciler.hpp"
#include "kube/controller.hpp"
#include "kube/informer.hpp"
#include "offload/config_reflector.hpp"
#include "offload/namespace_map_reconciler.hpp"
#include "offload/offloading_reconciler.hpp"
#include "offload/pod_reflector.hpp"
#include "offload/pod_webhook.hpp"
#include "offload/replication_reconciler.hpp"
#include "offload/service_reflector.hpp"
#include "offload/virtual_kubelet.hpp"
#include "offload/virtual_node_reconciler.hpp"
#include "offload/webhook_config_reconciler.hpp"
#include "offload/webhook_tls_store.hpp"
#include "roles/role_runner.hpp"

namespace fed::federation {

struct ManagerOptions {
  // Where the pod webhook listens (HTTPS); empty: no webhook.
  std::string webhook_bind_address{offload::kDefaultWebhookBindAddress};
  // Where its serving certificate and key are written (empty: a directory of this process
  // under the system's temporary directory).
  std::string webhook_cert_dir;
  // The virtual nodes' kubelet API (kubectl logs): where it listens, the address the virtual
  // nodes publish for it (empty: not served), and where its certificates are written (empty: a
  // directory of this process under the system's temporary directory).
  std::string kubelet_bind_address{offload::kDefaultKubeletBindAddress};
  std::string kubelet_advertise_address;
  std::string kubelet_cert_dir;
  // Workers of the NamespaceOffloading and NamespaceMap controllers (benchmark E2 compares 1
  // and 5; a NamespaceMap is one key per member, so its workers only help across members).
  int offload_workers = 2;
  // The client-side limit of the manager's requests to the host API server, shared by every
  // controller (as kube-controller-manager's --kube-api-qps/--kube-api-burst). Offloading to
  // n members writes about 2n objects on the host at once.
  double api_qps = 50;
  int api_burst = 100;
};

class ManagerRunner final : public agent::RoleRunner {
 public:
  explicit ManagerRunner(ManagerOptions options = {}) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::Manager; }
  // Connects to the host (--kubeconfig/--context, else in-cluster), reads its federation
  // ConfigMap, restores its IPAM and starts the controllers. Fails when the host was never
  // initialised (kubectl fed init).
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override { return ready_.load(); }
  void stop() override;

 private:
  // The DeploymentReplication controller and its informers (replicas, replications).
  void prepare_replication();
  // The pod webhook's certificates, configuration and server (before the controllers start).
  Status prepare_webhook();
  Status start_webhook();
  // The namespaces the pod webhook must see: those with a NamespaceOffloading not being deleted.
  std::set<std::string> offloaded_namespaces() const;
  // The virtual nodes' kubelet API; it starts serving once the cluster signed its certificate.
  void prepare_kubelet(const offload::MemberClient& member_client);

  ManagerOptions options_;
  std::shared_ptr<kube::DynamicClient> host_;
  std::unique_ptr<ClusterIpam> host_ipam_;
  std::unique_ptr<kube::Informer> clusters_;
  std::unique_ptr<kube::Informer> credentials_;    // members' credential Secrets
  std::unique_ptr<kube::Informer> host_peerings_;  // the host's Peerings, one per member
  std::unique_ptr<MembershipReconciler> membership_;
  std::unique_ptr<kube::Controller> controller_;
  std::unique_ptr<kube::Informer> endpoint_mappings_;
  std::unique_ptr<kube::Informer> nat_mappings_;  // the host's, checked against the IPAM
  std::unique_ptr<EndpointMappingReconciler> endpoint_reconciler_;
  std::unique_ptr<kube::Controller> endpoint_controller_;
  std::unique_ptr<kube::Informer> direct_peerings_;
  std::unique_ptr<DirectPeeringReconciler> direct_reconciler_;
  std::unique_ptr<kube::Controller> direct_controller_;
  std::unique_ptr<kube::Informer> virtual_nodes_;  // host Nodes labelled type=virtual-node
  std::unique_ptr<offload::VirtualNodeReconciler> virtual_node_reconciler_;
  std::unique_ptr<kube::Controller> virtual_node_controller_;
  std::unique_ptr<kube::EventRecorder> events_;  // about the federation's objects on the host
  std::unique_ptr<kube::Informer> namespace_maps_;
  std::unique_ptr<kube::Informer> offloadings_;
  std::unique_ptr<kube::Informer> enabled_namespaces_;  // labelled kubectl-fed.io/enabled=true
  std::unique_ptr<offload::OffloadingReconciler> offloading_reconciler_;
  std::unique_ptr<kube::Controller> offloading_controller_;
  offload::FreshReplicas fresh_replicas_;  // shared by the NamespaceMap and pod reflectors
  std::unique_ptr<offload::NamespaceMapReconciler> namespace_map_reconciler_;
  std::unique_ptr<kube::Controller> namespace_map_controller_;
  std::unique_ptr<offload::PodReflector> pod_reflector_;
  std::unique_ptr<kube::Controller> pod_reflection_controller_;
  std::unique_ptr<kube::Informer> services_;         // the host's, all namespaces
  std::unique_ptr<kube::Informer> endpoint_slices_;  // the host's, all namespaces
  std::unique_ptr<offload::ServiceReflector> service_reflector_;
  std::unique_ptr<kube::Controller> service_reflection_controller_;
  std::unique_ptr<kube::Informer> replications_;  // DeploymentReplications, all namespaces
  std::unique_ptr<kube::Informer> replicas_;      // Deployments labelled kubectl-fed.io/replica-of
  std::unique_ptr<offload::ReplicationReconciler> replication_reconciler_;
  std::unique_ptr<kube::Controller> replication_controller_;
  std::unique_ptr<offload::ConfigReflector> config_reflector_;
  std::unique_ptr<kube::Controller> config_reflection_controller_;
  std::unique_ptr<offload::WebhookTlsStore> webhook_tls_;
  std::unique_ptr<offload::WebhookConfigReconciler> webhook_reconciler_;
  std::unique_ptr<kube::Controller> webhook_controller_;
  std::unique_ptr<offload::PodWebhook> webhook_;
  std::unique_ptr<offload::VirtualKubelet> kubelet_;
  std::unique_ptr<kube::Controller> kubelet_controller_;

  std::atomic<bool> ready_{false};
};

}  // namespace fed::federation

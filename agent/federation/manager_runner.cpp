#include "federation/manager_runner.hpp"

#include <unistd.h>

#include <filesystem>

#include <spdlog/spdlog.h>

#include "fedapi/group.hpp"
#include "offload/webhook_configuration.hpp"
#include "roles/api_config.hpp"

namespace fed::federation {

Status ManagerRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-manager"));
  config.qps = options_.api_qps;
  config.burst = options_.api_burst;
  FED_ASSIGN_OR_RETURN(host_, kube::DynamicClient::create(std::move(config)));
  FED_ASSIGN_OR_RETURN(auto info, read_cluster_info(*host_));
  if (info.role != ClusterRole::Host) {
    return fail(ErrorCode::Invalid, "cluster " + info.cluster_id +
                                        " is a member, not a host: run the manager on the host");
  }
  FED_ASSIGN_OR_RETURN(host_ipam_, ClusterIpam::open(host_, info));
  spdlog::info("manager for federation {}: PodCIDR {}, ExternalCIDR {}", info.cluster_id,
               host_ipam_->local().pod_cidr.str(), host_ipam_->local().external_cidr.str());

  clusters_ = std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kFederatedCluster, ""));
  kube::InformerOptions credential_options;
  credential_options.label_selector = std::string(kMemberCredentialLabel);
  credentials_ = std::make_unique<kube::Informer>(
      host_, kube::ResourceRef{{"", "v1", "secrets"}, std::string(kNamespace), "", ""},
      std::move(credential_options));
  host_peerings_ = std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kPeering, ""));
  membership_ = std::make_unique<MembershipReconciler>(HostCluster{host_, info, host_ipam_.get()},
                                                       *clusters_, credentials_.get());
  kube::ControllerOptions options;
  options.name = "membership";
  // One worker: the host IPAM and the tunnel-address pool are shared by every member.
  options.workers = 1;
  controller_ = std::make_unique<kube::Controller>(*membership_, std::move(options));
  controller_->watch(*clusters_);
  controller_->watch(*host_peerings_, [this](const nlohmann::json& peering) {
    return membership_->cluster_of_peering(peering);
  });

  endpoint_mappings_ =
      std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kEndpointMapping, ""));
  nat_mappings_ = std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kNatMapping, ""));
  endpoint_reconciler_ = std::make_unique<EndpointMappingReconciler>(
      HostCluster{host_, info, host_ipam_.get()}, *endpoint_mappings_, *nat_mappings_);
  kube::ControllerOptions endpoint_options;
  endpoint_options.name = "endpoint-mapping";
  // The IPAM lock is held only in memory; the API round trips (finalizer, status, the group
  // commits of IpamState and NatMapping) overlap across workers, and the commits coalesce: a
  // batch holds at most one mapping per worker, and at 6 000 mappings one NatMapping write
  // costs the API server ~0.5 s whatever the patch type, so the batches must be wide.
  endpoint_options.workers = 32;
  endpoint_controller_ =
      std::make_unique<kube::Controller>(*endpoint_reconciler_, std::move(endpoint_options));
  endpoint_controller_->watch(*endpoint_mappings_);
  endpoint_controller_->watch(*nat_mappings_, EndpointMappingReconciler::nat_mapping_request);

  direct_peerings_ =
      std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kDirectPeering, ""));
  direct_reconciler_ =
      std::make_unique<DirectPeeringReconciler>(host_, *direct_peerings_, *membership_);
  kube::ControllerOptions direct_options;
  direct_options.name = "direct-peering";
  direct_options.workers = 1;  // member IPAMs are locked per pair; one link at a time is plenty
  direct_controller_ =
      std::make_unique<kube::Controller>(*direct_reconciler_, std::move(direct_options));
  direct_controller_->watch(*direct_peerings_);

  kube::InformerOptions virtual_node_options;
  virtual_node_options.label_selector = offload::VirtualNodeReconciler::virtual_node_selector();
  virtual_nodes_ = std::make_unique<kube::Informer>(
      host_, kube::ResourceRef{{"", "v1", "nodes"}, "", "", ""}, std::move(virtual_node_options));
  namespace_maps_ = std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kNamespaceMap, ""));
  const offload::MemberClient member_client =
      [this](const std::string& id) -> Result<std::shared_ptr<kube::DynamicClient>> {
    FED_ASSIGN_OR_RETURN(auto joined, membership_->joined_member(id));
    return joined.member->client;
  };
  prepare_kubelet(member_client);
  offload::KubeletEndpointSource kubelet_endpoint;
  if (kubelet_) kubelet_endpoint = [this] { return kubelet_->endpoint(); };
  virtual_node_reconciler_ = std::make_unique<offload::VirtualNodeReconciler>(
      host_, *clusters_, *virtual_nodes_, *namespace_maps_, std::move(kubelet_endpoint));
  // Each pass is a few small writes per member; two keep a slow member from delaying the
  // others' Lease renewals.
  virtual_node_controller_ = kube::make_controller(*virtual_node_reconciler_, "virtual-node", 2);
  virtual_node_controller_->watch(*clusters_);
  virtual_node_controller_->watch(*virtual_nodes_, offload::VirtualNodeReconciler::member_of);
  virtual_node_controller_->watch(*namespace_maps_, offload::VirtualNodeReconciler::member_of_map);

  offloadings_ =
      std::make_unique<kube::Informer>(host_, fedapi::ref_in(fedapi::kNamespaceOffloading, "", ""));
  kube::InformerOptions enabled_options;
  enabled_options.label_selector = std::string(offload::kEnabledLabel) + "=true";
  enabled_namespaces_ = std::make_unique<kube::Informer>(
      host_, kube::ResourceRef{{"", "v1", "namespaces"}, "", "", ""}, std::move(enabled_options));
  events_ =
      std::make_unique<kube::EventRecorder>(host_, kube::EventSource{"fed-agent-manager", ""});
  offloading_reconciler_ = std::make_unique<offload::OffloadingReconciler>(
      host_, info.cluster_id,
      offload::OffloadingInformers{*offloadings_, *namespace_maps_, *virtual_nodes_,
                                   *enabled_namespaces_},
      events_.get());
  offloading_controller_ =
      make_controller(*offloading_reconciler_, "namespace-offloading", options_.offload_workers);
  offloading_controller_->watch(*offloadings_, offload::OffloadingReconciler::namespace_of);
  offloading_controller_->watch(*enabled_namespaces_, offload::OffloadingReconciler::namespace_of);
  offloading_controller_->watch(*namespace_maps_, [this](const nlohmann::json& nm) {
    return offloading_reconciler_->namespaces_changed_in_map(nm);
  });
  offloading_controller_->watch(*virtual_nodes_, [this](const nlohmann::json& node) {
    return offloading_reconciler_->every_offloading(node);
  });

  namespace_map_reconciler_ = std::make_unique<offload::NamespaceMapReconciler>(
      host_, info.cluster_id, *namespace_maps_, member_client, fresh_replicas_);
  namespace_map_controller_ =
      make_controller(*namespace_map_reconciler_, "namespace-map", options_.offload_workers);
  namespace_map_controller_->watch(*namespace_maps_);

  pod_reflector_ = std::make_unique<offload::PodReflector>(
      host_, info.cluster_id, *namespace_maps_, member_client,
      [this](const std::string& id, std::string_view ip) {
        return host_ipam_->peer_pod_ip(id, ip);
      },
      fresh_replicas_);
  pod_reflection_controller_ = kube::make_controller(*pod_reflector_, "pod-reflection", 4);
  pod_reflector_->attach(*pod_reflection_controller_);

  services_ = std::make_unique<kube::Informer>(
      host_, kube::ResourceRef{{"", "v1", "services"}, "", "", ""});
  endpoint_slices_ = std::make_unique<kube::Informer>(
      host_, kube::ResourceRef{{"discovery.k8s.io", "v1", "endpointslices"}, "", "", ""});
  service_reflector_ = std::make_unique<offload::ServiceReflector>(
      host_, info.cluster_id,
      offload::ServiceInformers{*services_, *endpoint_slices_, *namespace_maps_,
                                *endpoint_mappings_},
      member_client, [this](const std::string& id, std::string_view ip) {
        return host_ipam_->peer_own_ip(id, ip);
      });
  service_reflection_controller_ =
      kube::make_controller(*service_reflector_, "service-reflection", 2);
  service_reflection_controller_->watch(*services_);
  service_reflection_controller_->watch(*endpoint_slices_,
                                        offload::ServiceReflector::service_of_slice);
  service_reflection_controller_->watch(*endpoint_mappings_,
                                        offload::ServiceReflector::service_of_mapping);
  service_reflection_controller_->watch(*namespace_maps_, [this](const nlohmann::json& nm) {
    return service_reflector_->services_of_map(nm);
  });

  config_reflector_ = std::make_unique<offload::ConfigReflector>(
      host_, info.cluster_id, *offloadings_, *namespace_maps_, member_client, events_.get());
  config_reflection_controller_ = kube::make_controller(*config_reflector_, "config-reflection", 2);
  config_reflector_->attach(*config_reflection_controller_);

  prepare_replication();
  FED_TRY(prepare_webhook());

  clusters_->start();
  credentials_->start();
  host_peerings_->start();
  services_->start();
  endpoint_slices_->start();
  virtual_nodes_->start();
  namespace_maps_->start();
  offloadings_->start();
  enabled_namespaces_->start();
  endpoint_mappings_->start();
  nat_mappings_->start();
  direct_peerings_->start();
  replications_->start();
  replicas_->start();
  FED_TRY(controller_->start());
  FED_TRY(endpoint_controller_->start());
  for (const auto& request : endpoint_reconciler_->startup_requests()) {
    endpoint_controller_->queue().add(request);
  }
  FED_TRY(direct_controller_->start());
  FED_TRY(virtual_node_controller_->start());
  FED_TRY(offloading_controller_->start());
  FED_TRY(namespace_map_controller_->start());
  FED_TRY(pod_reflection_controller_->start());
  FED_TRY(service_reflection_controller_->start());
  FED_TRY(config_reflection_controller_->start());
  FED_TRY(replication_controller_->start());
  FED_TRY(start_webhook());
  if (kubelet_controller_) {
    FED_TRY(kubelet_controller_->start());
    kubelet_controller_->queue().add(offload::VirtualKubelet::request());
  }
  ready_ = true;
  return ok();
}

void ManagerRunner::prepare_replication() {
  replications_ = std::make_unique<kube::Informer>(
      host_, fedapi::ref_in(fedapi::kDeploymentReplication, "", ""));
  kube::InformerOptions replica_options;
  replica_options.label_selector = offload::ReplicationReconciler::replica_selector();
  replicas_ = std::make_unique<kube::Informer>(
      host_, kube::ResourceRef{{"apps", "v1", "deployments"}, "", "", ""},
      std::move(replica_options));
  replication_reconciler_ = std::make_unique<offload::ReplicationReconciler>(
      host_, offload::ReplicationInformers{*replications_, *offloadings_, *virtual_nodes_},
      events_.get());
  replication_controller_ =
      make_controller(*replication_reconciler_, "deployment-replication", options_.offload_workers);
  replication_controller_->watch(*replications_);
  replication_controller_->watch(*replicas_, offload::ReplicationReconciler::owner_of_replica);
  replication_controller_->watch(*offloadings_, [this](const nlohmann::json& offloading) {
    return replication_reconciler_->replications_in_namespace(offloading);
  });
  replication_controller_->watch(*virtual_nodes_, [this](const nlohmann::json& node) {
    return replication_reconciler_->every_replication(node);
  });
}

Status ManagerRunner::prepare_webhook() {
  if (options_.webhook_bind_address.empty()) return ok();
  std::filesystem::path dir = options_.webhook_cert_dir;
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path() /
          ("kubectl-fed-webhook-" + std::to_string(::getpid()));
  }
  webhook_tls_ =
      std::make_unique<offload::WebhookTlsStore>(host_, std::string(kNamespace), std::move(dir));
  // The server checks its certificate files when it is created: they must exist first.
  FED_TRY(webhook_tls_->sync(std::chrono::system_clock::now()));
  webhook_reconciler_ = std::make_unique<offload::WebhookConfigReconciler>(
      host_, *webhook_tls_,
      offload::WebhookConfigTarget{
          {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
          std::string(offload::kWebhookConfiguration),
          "pod webhook",
          "pods of offloaded namespaces get no placement rules",
          [this](const nlohmann::json& current, const std::string& ca_bundle) {
            return offload::webhook_configuration(current, ca_bundle, offloaded_namespaces());
          }});
  webhook_controller_ = kube::make_controller(*webhook_reconciler_, "pod-webhook", 1);
  webhook_controller_->watch(*offloadings_, [](const nlohmann::json&) {
    return std::vector<kube::Request>{offload::WebhookConfigReconciler::request()};
  });
  return ok();
}

std::set<std::string> ManagerRunner::offloaded_namespaces() const {
  std::set<std::string> offloaded;
  for (const auto& o : offloadings_->store().list()) {
    if (!(*o)["metadata"].contains("deletionTimestamp")) {
      offloaded.insert((*o)["metadata"].value("namespace", ""));
    }
  }
  return offloaded;
}

Status ManagerRunner::start_webhook() {
  if (!webhook_controller_) return ok();
  FED_TRY(webhook_controller_->start());
  webhook_controller_->queue().add(offload::WebhookConfigReconciler::request());
  // Serves only once the offloadings are cached (the controllers' start waited for that), so an
  // early pod is not waved through as "not offloaded".
  FED_ASSIGN_OR_RETURN(webhook_, offload::PodWebhook::start(options_.webhook_bind_address,
                                                            webhook_tls_->files(), *offloadings_));
  return ok();
}

void ManagerRunner::prepare_kubelet(const offload::MemberClient& member_client) {
  if (options_.kubelet_bind_address.empty()) return;
  if (options_.kubelet_advertise_address.empty()) {
    spdlog::info(
        "virtual kubelet: no --kubelet-advertise-address (or $POD_IP): kubectl logs of "
        "offloaded pods is not served");
    return;
  }
  std::filesystem::path dir = options_.kubelet_cert_dir;
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path() /
          ("kubectl-fed-kubelet-" + std::to_string(::getpid()));
  }
  kubelet_ = std::make_unique<offload::VirtualKubelet>(
      host_, *namespace_maps_, member_client,
      offload::VirtualKubeletOptions{options_.kubelet_bind_address,
                                     options_.kubelet_advertise_address, std::move(dir)});
  // Its own worker: a certificate request may wait for the signer.
  kubelet_controller_ = kube::make_controller(*kubelet_, "virtual-kubelet", 1);
}

void ManagerRunner::stop() {
  ready_ = false;
  if (webhook_) webhook_->stop();
  if (webhook_controller_) webhook_controller_->stop();
  if (kubelet_) kubelet_->stop();
  if (kubelet_controller_) kubelet_controller_->stop();
  for (auto* c : {replication_controller_.get(), config_reflection_controller_.get(),
                  service_reflection_controller_.get(), pod_reflection_controller_.get(),
                  namespace_map_controller_.get(), offloading_controller_.get(),
                  virtual_node_controller_.get()}) {
    if (c) c->stop();
  }
  if (pod_reflector_) pod_reflector_->stop();
  if (config_reflector_) config_reflector_->stop();
  if (direct_controller_) direct_controller_->stop();
  if (endpoint_controller_) endpoint_controller_->stop();
  if (controller_) controller_->stop();
  if (direct_peerings_) direct_peerings_->stop();
  if (nat_mappings_) nat_mappings_->stop();
  if (endpoint_mappings_) endpoint_mappings_->stop();
  for (auto* i : {replicas_.get(), replications_.get(), services_.get(), endpoint_slices_.get(),
                  enabled_namespaces_.get(), offloadings_.get(), namespace_maps_.get(),
                  virtual_nodes_.get()}) {
    if (i) i->stop();
  }
  if (clusters_) clusters_->stop();
  if (credentials_) credentials_->stop();
  if (host_peerings_) host_peerings_->stop();
}

}  // namespace fed::federation

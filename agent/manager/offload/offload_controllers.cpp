#include "agent/manager/offload/offload_controllers.hpp"

#include <unistd.h>

#include <chrono>
#include <set>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "agent/manager/offload/namespaces/offloading_reconciler.hpp"
#include "agent/manager/offload/reflection/config_reflector.hpp"
#include "agent/manager/offload/replication/replication_reconciler.hpp"
#include "agent/manager/offload/virtual_kubelet/virtual_node_reconciler.hpp"
#include "agent/manager/offload/webhook/webhook_configuration.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/webhook/webhook_config_reconciler.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::offload {
namespace {

constexpr std::chrono::minutes kWebhookCacheTimeout{2};

// A directory of this process under the system's temporary directory, unless `dir` names one.
std::filesystem::path cert_dir_or_temp(const std::string& dir, const std::string& prefix) {
  if (!dir.empty()) return dir;
  return std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
}

// The host collections offloading shares between its controllers.
struct HostInformers {
  kube::Informer& virtual_nodes;  // host Nodes labelled type=virtual-node
  kube::Informer& namespace_maps;
  kube::Informer& offloadings;
};

// The virtual nodes' kubelet API (kubectl logs, exec, port-forward); null when not served. It
// starts serving once the cluster signed its certificate.
VirtualKubelet* add_virtual_kubelet(kube::ControllerManager& manager, const HostInformers& host,
                                    const OffloadDeps& deps, const OffloadOptions& options) {
  if (options.kubelet_bind_address.empty()) return nullptr;
  if (options.kubelet_advertise_address.empty()) {
    spdlog::info(
        "virtual kubelet: no --kubelet-advertise-address (or $POD_IP): kubectl logs of "
        "offloaded pods is not served");
    return nullptr;
  }
  return &manager.own(std::make_unique<VirtualKubelet>(
      manager.client(), host.namespace_maps, deps.member_client,
      VirtualKubeletOptions{options.kubelet_bind_address, options.kubelet_advertise_address,
                            cert_dir_or_temp(options.kubelet_cert_dir, "kubectl-fed-kubelet-")}));
}

// Started last: its own worker, as a certificate request may wait for the signer.
void start_virtual_kubelet(kube::ControllerManager& manager, VirtualKubelet* kubelet) {
  if (!kubelet) return;
  kube::Controller& controller = manager.add_controller(*kubelet, "virtual-kubelet", 1);
  manager.add_runnable(
      "virtual-kubelet server",
      [&controller] {
        controller.queue().add(VirtualKubelet::request());
        return ok();
      },
      [kubelet] { kubelet->stop(); });
}

}  // namespace

void add_offload_controllers(kube::ControllerManager& manager, const OffloadDeps& deps,
                             const OffloadOptions& options) {
  const auto& host = manager.client();
  kube::InformerOptions virtual_node_options;
  virtual_node_options.label_selector = VirtualNodeReconciler::virtual_node_selector();
  const HostInformers informers{
      manager.informer(kube::ResourceRef{{"", "v1", "nodes"}, "", "", ""},
                       std::move(virtual_node_options)),
      manager.informer(fedapi::ref(fedapi::kNamespaceMap, "")),
      manager.informer(fedapi::ref_in(fedapi::kNamespaceOffloading, "", ""))};
  kube::Informer& clusters = manager.informer(fedapi::ref(fedapi::kFederatedCluster, ""));

  VirtualKubelet* kubelet = add_virtual_kubelet(manager, informers, deps, options);
  KubeletEndpointSource kubelet_endpoint;
  if (kubelet) kubelet_endpoint = [kubelet] { return kubelet->endpoint(); };
  auto& virtual_nodes = manager.own(std::make_unique<VirtualNodeReconciler>(
      host, clusters, informers.virtual_nodes, informers.namespace_maps,
      std::move(kubelet_endpoint)));
  // Each pass is a few small writes per member; two keep a slow member from delaying the
  // others' Lease renewals.
  kube::Controller& nodes = manager.add_controller(virtual_nodes, "virtual-node", 2);
  nodes.watch(clusters);
  nodes.watch(informers.virtual_nodes, VirtualNodeReconciler::member_of);
  nodes.watch(informers.namespace_maps, VirtualNodeReconciler::member_of_map);

  kube::InformerOptions enabled_options;
  enabled_options.label_selector = std::string(kEnabledLabel) + "=true";
  kube::Informer& enabled_namespaces = manager.informer(
      kube::ResourceRef{{"", "v1", "namespaces"}, "", "", ""}, std::move(enabled_options));
  auto& offloading = manager.own(std::make_unique<OffloadingReconciler>(
      host, deps.cluster_id,
      OffloadingInformers{informers.offloadings, informers.namespace_maps, informers.virtual_nodes,
                          enabled_namespaces},
      deps.events));
  kube::Controller& offloadings =
      manager.add_controller(offloading, "namespace-offloading", options.workers);
  offloadings.watch(informers.offloadings, OffloadingReconciler::namespace_of);
  offloadings.watch(enabled_namespaces, OffloadingReconciler::namespace_of);
  offloadings.watch(informers.namespace_maps, [&offloading](const nlohmann::json& nm) {
    return offloading.namespaces_changed_in_map(nm);
  });
  offloadings.watch(informers.virtual_nodes, [&offloading](const nlohmann::json& node) {
    return offloading.every_offloading(node);
  });

  // Shared by the NamespaceMap and pod reflectors.
  auto& fresh_replicas = manager.own(std::make_unique<FreshReplicas>());
  auto& namespace_maps = manager.own(std::make_unique<NamespaceMapReconciler>(
      host, deps.cluster_id, informers.namespace_maps, deps.member_client, fresh_replicas));
  manager.add_controller(namespace_maps, "namespace-map", options.workers)
      .watch(informers.namespace_maps);

  auto& pods = manager.own(
      std::make_unique<PodReflector>(host, deps.cluster_id, informers.namespace_maps,
                                     manager.informer(fedapi::ref(fedapi::kPeering, "")),
                                     deps.member_client, deps.pod_ip_on_host, fresh_replicas));
  // Its member watches stop after its controller (components stop in reverse order).
  manager.add_runnable("pod-reflection watches", {}, [&pods] { pods.stop(); });
  pods.attach(manager.add_controller(pods, "pod-reflection", 4));

  kube::Informer& services =
      manager.informer(kube::ResourceRef{{"", "v1", "services"}, "", "", ""});
  kube::Informer& endpoint_slices =
      manager.informer(kube::ResourceRef{{"discovery.k8s.io", "v1", "endpointslices"}, "", "", ""});
  kube::Informer& endpoint_mappings = manager.informer(fedapi::ref(fedapi::kEndpointMapping, ""));
  auto& service_reflector = manager.own(std::make_unique<ServiceReflector>(
      host, deps.cluster_id,
      ServiceInformers{services, endpoint_slices, informers.namespace_maps, endpoint_mappings},
      deps.member_client, deps.member_own_ip));
  kube::Controller& service_reflection =
      manager.add_controller(service_reflector, "service-reflection", 2);
  service_reflection.watch(services);
  service_reflection.watch(endpoint_slices, ServiceReflector::service_of_slice);
  service_reflection.watch(endpoint_mappings, ServiceReflector::service_of_mapping);
  service_reflection.watch(informers.namespace_maps,
                           [&service_reflector](const nlohmann::json& nm) {
                             return service_reflector.services_of_map(nm);
                           });

  auto& config = manager.own(
      std::make_unique<ConfigReflector>(host, deps.cluster_id, informers.offloadings,
                                        informers.namespace_maps, deps.member_client, deps.events));
  manager.add_runnable("config-reflection watches", {}, [&config] { config.stop(); });
  config.attach(manager.add_controller(config, "config-reflection", 2));

  kube::InformerOptions replica_options;
  replica_options.label_selector = ReplicationReconciler::replica_selector();
  kube::Informer& replicas = manager.informer(
      kube::ResourceRef{{"apps", "v1", "deployments"}, "", "", ""}, std::move(replica_options));
  kube::Informer& replications =
      manager.informer(fedapi::ref_in(fedapi::kDeploymentReplication, "", ""));
  auto& replication = manager.own(std::make_unique<ReplicationReconciler>(
      host, ReplicationInformers{replications, informers.offloadings, informers.virtual_nodes},
      deps.events));
  kube::Controller& replication_controller =
      manager.add_controller(replication, "deployment-replication", options.workers);
  replication_controller.watch(replications);
  replication_controller.watch(replicas, ReplicationReconciler::owner_of_replica);
  replication_controller.watch(informers.offloadings,
                               [&replication](const nlohmann::json& changed) {
                                 return replication.replications_in_namespace(changed);
                               });
  replication_controller.watch(informers.virtual_nodes, [&replication](const nlohmann::json& node) {
    return replication.every_replication(node);
  });

  start_virtual_kubelet(manager, kubelet);
}

void add_pod_webhook(kube::ControllerManager& manager, const OffloadOptions& options) {
  if (options.webhook_bind_address.empty()) return;
  kube::Informer& offloadings =
      manager.informer(fedapi::ref_in(fedapi::kNamespaceOffloading, "", ""));
  auto& tls = manager.own(std::make_unique<webhook::WebhookTlsStore>(
      manager.client(), std::string(fedapi::kNamespace),
      cert_dir_or_temp(options.webhook_cert_dir, "kubectl-fed-webhook-"),
      webhook::WebhookTlsNames{}, options.webhook_callers));
  auto offloaded_namespaces = [&offloadings] {
    std::set<std::string> offloaded;
    for (const auto& o : offloadings.store().list()) {
      if (!(*o)["metadata"].contains("deletionTimestamp")) {
        offloaded.insert((*o)["metadata"].value("namespace", ""));
      }
    }
    return offloaded;
  };
  auto& configuration = manager.own(std::make_unique<webhook::WebhookConfigReconciler>(
      manager.client(), tls,
      webhook::WebhookConfigTarget{
          {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
          std::string(kWebhookConfiguration),
          "pod webhook",
          "pods of offloaded namespaces get no placement rules",
          [offloaded_namespaces](const nlohmann::json& current, const std::string& ca_bundle) {
            return webhook_configuration(current, ca_bundle, offloaded_namespaces());
          }}));
  // The server checks its certificate files when it is created: they must exist first.
  manager.add_runnable("pod-webhook certificates", [&tls]() -> Status {
    FED_TRY(tls.sync(std::chrono::system_clock::now()));
    return ok();
  });
  kube::Controller& controller = manager.add_controller(configuration, "pod-webhook", 1);
  controller.watch(offloadings, [](const nlohmann::json&) {
    return std::vector<kube::Request>{webhook::WebhookConfigReconciler::request()};
  });
  auto& server = manager.own(std::make_unique<std::unique_ptr<PodWebhook>>());
  manager.add_runnable(
      "pod-webhook server",
      [&controller, &server, &tls, &offloadings,
       address = options.webhook_bind_address]() -> Status {
        // Served only once the offloadings are cached: an early pod would be waved through.
        if (!offloadings.wait_for_sync(kWebhookCacheTimeout)) {
          return fail(ErrorCode::Unavailable,
                      "the NamespaceOffloading cache did not sync: the pod webhook cannot serve");
        }
        controller.queue().add(webhook::WebhookConfigReconciler::request());
        FED_ASSIGN_OR_RETURN(server, PodWebhook::start(address, tls, offloadings));
        return ok();
      },
      [&server] {
        if (server) server->stop();
      });
}

}  // namespace fed::offload

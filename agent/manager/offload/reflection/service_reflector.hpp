#pragma once
// Service reflection (spec 001 §1.2, spec 002 §2.4): every Service of an offloaded namespace
// gets a twin in each member's replica (reflected_service.hpp), with one EndpointSlice listing
// the host's ready endpoints as that member reaches them — its own pods (twins) at their own
// addresses, every other endpoint (a pod of the host or of another member) through an
// EndpointMapping on the host (MapEndpointIP: 1:1 for the host's pods, an ExternalCIDR address
// DNATed by the host's gateway for the others). So a pod on one member reaches a pod on another
// by the Service's ClusterIP on its own cluster, through stock kube-proxy.
//
// Requests: host Services (namespace, name). Twins deleted or changed by hand are restored on
// the next look (kServiceRecheck); the EndpointMappings a Service no longer needs are deleted.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/manager/offload/namespaces/accepted_replicas.hpp"
#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::offload {

inline constexpr std::chrono::seconds kServiceRecheck{30};
// On the EndpointMappings made for a Service: its namespace and name.
inline constexpr std::string_view kOriginServiceLabel = "kubectl-fed.io/origin-service";

// Member `id`'s own address of host-view address `ip` when it is one of its pods, else nullopt.
using MemberOwnIp =
    std::function<std::optional<std::string>(const std::string& id, std::string_view ip)>;

struct ServiceInformers {
  kube::Informer& services;         // the host's, all namespaces
  kube::Informer& endpoint_slices;  // the host's, all namespaces
  kube::Informer& namespace_maps;
  kube::Informer& endpoint_mappings;
};

class ServiceReflector final : public kube::Reconciler {
 public:
  ServiceReflector(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
                   ServiceInformers informers, MemberClient member_client,
                   MemberOwnIp member_own_ip);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // Event mappers: an EndpointSlice and an EndpointMapping concern their Service; a
  // NamespaceMap every Service of the namespaces it replicates.
  static std::vector<kube::Request> service_of_slice(const nlohmann::json& slice);
  static std::vector<kube::Request> service_of_mapping(const nlohmann::json& mapping);
  std::vector<kube::Request> services_of_map(const nlohmann::json& namespace_map) const;

 private:
  // The addresses member `id` reaches `addresses` at; `pending` when a mapping is not ready.
  Result<std::vector<std::string>> member_addresses(const std::string& id, const std::string& ns,
                                                    const std::string& service,
                                                    const std::vector<std::string>& addresses,
                                                    std::set<std::string>& used, bool& pending);
  Status remove_twins(const ReplicaClient& r, const std::string& service);
  Status collect_mappings(const std::string& ns, const std::string& service,
                          const std::set<std::string>& used);

  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;
  ServiceInformers informers_;
  MemberClient member_client_;
  MemberOwnIp member_own_ip_;
};

}  // namespace fed::offload

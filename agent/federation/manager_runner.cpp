#include "federation/manager_runner.hpp"

#include <spdlog/spdlog.h>

#include "fedapi/group.hpp"
#include "kube/kubeconfig_resolve.hpp"

namespace fed::federation {

Status ManagerRunner::start(const agent::RoleContext& ctx) {
  kube::LoadOptions load;
  load.kubeconfig_path = ctx.options.kubeconfig;
  load.context = ctx.options.context;
  FED_ASSIGN_OR_RETURN(auto config, kube::rest_config_from_flags(load));
  config.user_agent = "fed-agent-manager";
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
  membership_ = std::make_unique<MembershipReconciler>(HostCluster{host_, info, host_ipam_.get()},
                                                       *clusters_);
  kube::ControllerOptions options;
  options.name = "membership";
  // One worker: the host IPAM and the tunnel-address pool are shared by every member.
  options.workers = 1;
  controller_ = std::make_unique<kube::Controller>(*membership_, std::move(options));
  controller_->watch(*clusters_);

  endpoint_mappings_ =
      std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kEndpointMapping, ""));
  nat_mappings_ = std::make_unique<kube::Informer>(host_, fedapi::ref(fedapi::kNatMapping, ""));
  endpoint_reconciler_ = std::make_unique<EndpointMappingReconciler>(
      HostCluster{host_, info, host_ipam_.get()}, *endpoint_mappings_, *nat_mappings_);
  kube::ControllerOptions endpoint_options;
  endpoint_options.name = "endpoint-mapping";
  // The IPAM lock is held only in memory; the API round trips (finalizer, status, the group
  // commits of IpamState and NatMapping) overlap across workers, and the commits coalesce.
  endpoint_options.workers = 8;
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

  clusters_->start();
  endpoint_mappings_->start();
  nat_mappings_->start();
  direct_peerings_->start();
  FED_TRY(controller_->start());
  FED_TRY(endpoint_controller_->start());
  for (const auto& request : endpoint_reconciler_->startup_requests()) {
    endpoint_controller_->queue().add(request);
  }
  FED_TRY(direct_controller_->start());
  ready_ = true;
  return ok();
}

void ManagerRunner::stop() {
  ready_ = false;
  if (direct_controller_) direct_controller_->stop();
  if (endpoint_controller_) endpoint_controller_->stop();
  if (controller_) controller_->stop();
  if (direct_peerings_) direct_peerings_->stop();
  if (nat_mappings_) nat_mappings_->stop();
  if (endpoint_mappings_) endpoint_mappings_->stop();
  if (clusters_) clusters_->stop();
}

}  // namespace fed::federation

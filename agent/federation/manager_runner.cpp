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
  clusters_->start();
  FED_TRY(controller_->start());
  ready_ = true;
  return ok();
}

void ManagerRunner::stop() {
  ready_ = false;
  if (controller_) controller_->stop();
  if (clusters_) clusters_->stop();
}

}  // namespace fed::federation

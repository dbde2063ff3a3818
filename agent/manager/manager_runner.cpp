#include "agent/manager/manager_runner.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/membership/membership_controllers.hpp"
#include "agent/roles/api_config.hpp"
#include "shared/fedapi/cluster_info.hpp"

namespace fed::federation {

Status ManagerRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-manager"));
  config.qps = options_.api_qps;
  config.burst = options_.api_burst;
  FED_ASSIGN_OR_RETURN(auto host, kube::DynamicClient::create(std::move(config)));
  FED_ASSIGN_OR_RETURN(auto info, read_cluster_info(*host));
  if (info.role != ClusterRole::Host) {
    return fail(ErrorCode::Invalid, "cluster " + info.cluster_id +
                                        " is a member, not a host: run the manager on the host");
  }
  FED_ASSIGN_OR_RETURN(host_ipam_, ClusterIpam::open(host, info));
  spdlog::info("manager for federation {}: PodCIDR {}, ExternalCIDR {}", info.cluster_id,
               host_ipam_->local().pod_cidr.str(), host_ipam_->local().external_cidr.str());
  events_ = std::make_unique<kube::EventRecorder>(host, kube::EventSource{"fed-agent-manager", ""});

  manager_ = std::make_unique<kube::ControllerManager>(host);
  const Membership membership =
      add_membership_controllers(*manager_, HostCluster{host, info, host_ipam_.get()});
  ClusterIpam* ipam = host_ipam_.get();
  offload::add_offload_controllers(
      *manager_,
      offload::OffloadDeps{
          info.cluster_id,
          [&members = membership.members](
              const std::string& id) -> Result<std::shared_ptr<kube::DynamicClient>> {
            FED_ASSIGN_OR_RETURN(auto joined, members.joined_member(id));
            return joined.member->client;
          },
          [ipam](const std::string& id, std::string_view ip) { return ipam->peer_pod_ip(id, ip); },
          [ipam](const std::string& id, std::string_view ip) { return ipam->peer_own_ip(id, ip); },
          events_.get()},
      options_.offload);
  return manager_->start();
}

void ManagerRunner::stop() {
  if (manager_) manager_->stop();
}

}  // namespace fed::federation

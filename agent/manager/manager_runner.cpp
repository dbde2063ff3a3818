#include "agent/manager/manager_runner.hpp"

#include <unistd.h>

#include <cstdlib>

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
  if (options_.election.etcd_endpoints.empty()) return manager_->start();
  manager_->start_caches();
  return start_election();
}

Status ManagerRunner::start_election() {
  const ManagerElectionOptions& o = options_.election;
  FED_TRY(o.timings.validate());
  std::string identity = o.identity;
  if (identity.empty()) {
    const char* pod = std::getenv("POD_NAME");
    char host[256] = {};
    if (pod == nullptr || *pod == '\0') ::gethostname(host, sizeof host - 1);
    identity =
        std::string(pod != nullptr && *pod != '\0' ? pod : host) + "_" + std::to_string(::getpid());
  }
  etcd::ClientOptions client;
  client.endpoints = o.etcd_endpoints;
  client.tls = o.etcd_tls;
  // A call must end before the renew deadline, so that a stuck one cannot outlive leadership.
  client.request_timeout = o.timings.renew_deadline * 2 / 3;
  client.dial_timeout = o.timings.renew_deadline / 3;
  client.status_timeout = o.timings.renew_deadline / 2;
  client.poll_period = o.timings.renew_period;
  FED_ASSIGN_OR_RETURN(election_etcd_, etcd::EtcdClient::create(std::move(client)));
  elector_ = std::make_unique<ha::LeaderElector>(
      *election_etcd_, o.key, identity, o.timings,
      ha::LeaderCallbacks{
          [this](const ha::LeaderRecord& record) {
            spdlog::info("manager {} leads the federation (epoch {}): starting the controllers",
                         record.holder, record.epoch);
            if (stopping_) return;
            if (auto started = manager_->start_components(); !started && !stopping_) {
              spdlog::critical("manager: the controllers did not start: {}",
                               started.error().message());
              std::_Exit(1);
            }
          },
          [] {
            spdlog::critical(
                "manager: leadership lost: exiting now, so that no write of a deposed leader "
                "lands (the pod restarts as a standby)");
            std::_Exit(1);
          },
          [](const std::optional<ha::LeaderRecord>& leader) {
            if (leader) {
              spdlog::info("manager: the federation's leader is {} (epoch {})", leader->holder,
                           leader->epoch);
            } else {
              spdlog::info("manager: the federation has no leader");
            }
          }});
  spdlog::info("manager {}: standing by for {} (caches warm, controllers stopped)", identity,
               o.key);
  election_ = std::jthread([this](std::stop_token stop) { elector_->run(stop); });
  return ok();
}

void ManagerRunner::stop() {
  stopping_ = true;
  // The controllers stop before the resignation, so that the next leader never overlaps them.
  if (manager_) manager_->stop_components();
  if (election_.joinable()) {
    election_.request_stop();
    election_.join();
  }
  if (manager_) manager_->stop();
}

}  // namespace fed::federation

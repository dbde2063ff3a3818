#include "agent/manager/manager_runner.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include <spdlog/spdlog.h>

#include "agent/manager/ha/observed_leader_publisher.hpp"
#include "agent/manager/ha/state_replication.hpp"
#include "agent/manager/hosts/host_reconciler.hpp"
#include "agent/manager/membership/membership_controllers.hpp"
#include "agent/manager/membership/tunnel_addresses.hpp"
#include "agent/roles/api_config.hpp"
#include "agent/roles/process_image.hpp"
#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::federation {
namespace {

// The holder's name in the record and in fed-leader: the host cluster's id, then $POD_NAME
// (else the machine's name) and the process id — "c1/fed-manager-7c9f-x2_1": the other hosts
// tell from it where the leader runs, and a restarted container is another candidate than the
// one it replaces. A process that replaced its image after a lost leadership keeps its pid, so
// its incarnation follows (".1").
std::string manager_identity(const std::string& configured, const std::string& host_id) {
  if (!configured.empty()) return configured;
  const char* pod = std::getenv("POD_NAME");
  char host[256] = {};
  if (pod == nullptr || *pod == '\0') ::gethostname(host, sizeof host - 1);
  const int incarnation = agent::process_incarnation();
  return host_id + "/" + std::string(pod != nullptr && *pod != '\0' ? pod : host) + "_" +
         std::to_string(::getpid()) +
         (incarnation == 0 ? std::string() : "." + std::to_string(incarnation));
}

}  // namespace

Status ManagerRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-manager"));
  config.qps = options_.api_qps;
  config.burst = options_.api_burst;
  FED_ASSIGN_OR_RETURN(auto host, kube::DynamicClient::create(std::move(config)));
  host_ = host;
  FED_ASSIGN_OR_RETURN(auto info, read_cluster_info(*host));
  host_id_ = info.cluster_id;
  if (info.role != ClusterRole::Host) {
    return fail(ErrorCode::Invalid, "cluster " + info.cluster_id +
                                        " is a member, not a host: run the manager on the host");
  }
  // A standby writes nothing: it persists the IPAM only once it leads (the first component).
  const bool elected = !options_.election.etcd_endpoints.empty();
  FED_ASSIGN_OR_RETURN(host_ipam_,
                       ClusterIpam::open(host, info, !elected,
                                         static_cast<std::uint8_t>(options_.ipam_block_length)));
  spdlog::info("manager for federation {}: PodCIDR {}, ExternalCIDR {}", info.cluster_id,
               host_ipam_->local().pod_cidr.str(), host_ipam_->local().external_cidr.str());
  events_ = std::make_unique<kube::EventRecorder>(host, kube::EventSource{"fed-agent-manager", ""});
  pod_label_ = std::make_unique<ha::LeaderPodLabel>(host, ha::own_pod_from_env());
  leader_metrics_ = std::make_unique<ha::LeaderMetrics>(ctx.metrics);

  manager_ = std::make_unique<kube::ControllerManager>(host);
  if (elected) {
    // The federation's host clusters are members of the etcd the managers elect through.
    etcd::ClientOptions etcd_options;
    etcd_options.endpoints = options_.election.etcd_endpoints;
    etcd_options.tls = options_.election.etcd_tls;
    FED_ASSIGN_OR_RETURN(hosts_etcd_, etcd::EtcdClient::create(std::move(etcd_options)));
    // First of all: the host holds what the federation committed before anything reads it.
    ha::add_state_replication(*manager_, *hosts_etcd_, [this]() -> std::optional<etcd::Compare> {
      if (!elector_) return std::nullopt;
      return elector_->fence();
    });
    // fed-leader goes out as soon as the host holds what the federation committed, while the
    // other controllers start: it tells where to send writes, which wait in the informers for
    // the controllers. Only the pod label (the webhook Service's routing) waits for them.
    manager_->add_runnable("leader publication", [this] {
      if (taking_over_) {
        publisher_ = std::jthread([this, announcement = *taking_over_] {
          publish(announcement, announcing_.get_token());
        });
      }
      return ok();
    });
  }
  offload::add_pod_webhook(*manager_, options_.offload);
  // A new leader allocates from what the previous one stored, not from what it read at start.
  manager_->add_runnable("host IPAM", [ipam = host_ipam_.get()] { return ipam->resume(); });
  HostCluster hub{host, info, host_ipam_.get(), {}};
  if (elected) {
    // Each host is the hub of its own tunnels with the members, at the address its
    // FederationHost was given (the first host's without one: a federation older than that).
    kube::Informer& hosts = manager_->informer(fedapi::ref(fedapi::kFederationHost, ""));
    hub.tunnel_address = [&hosts, info]() -> Result<std::string> {
      const auto own = hosts.store().get("", info.cluster_id);
      const std::string address = own ? tunnel_address_of(*own) : "";
      if (!address.empty()) return address;
      if (info.cluster_id == info.federation()) return std::string(kFirstHostTunnelAddress);
      return fail(ErrorCode::Unavailable, "FederationHost " + info.cluster_id +
                                              " has no tunnel address yet (the leader gives it)");
    };
  }
  const Membership membership = add_membership_controllers(*manager_, std::move(hub));
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
  const std::string identity = manager_identity(options_.election.identity, host_id_);
  if (options_.election.etcd_endpoints.empty()) {
    FED_TRY(manager_->start());
    // Alone, this manager leads at once; it says so as an elected one does, so that fed-leader
    // always answers (epoch 0: no election).
    leading_ = true;
    leader_metrics_->set_leading(true);
    const ha::LeaderAnnouncement announcement{
        identity, host_id_, 0, util::format_rfc3339(std::chrono::system_clock::now()), {}};
    announcer_ =
        std::jthread([this, announcement] { announce(announcement, announcing_.get_token()); });
  } else {
    hosts::add_host_controller(*manager_, *hosts_etcd_, options_.election.etcd_tls, host_id_,
                               info.federation());
    manager_->start_caches();
    FED_TRY(start_election(identity));
  }
  started_ = true;
  return ok();
}

bool ManagerRunner::ready() const {
  if (!started_ || !pod_label_->settled()) return false;
  if (options_.election.etcd_endpoints.empty()) return manager_->healthy();
  return manager_->caches_synced() && (!leading_ || manager_->healthy());
}

void ManagerRunner::announce(const ha::LeaderAnnouncement& announcement, std::stop_token stop) {
  // The label routes the webhook Service here, fed-leader tells people and the follower policy
  // where the leader is. Neither waits for the other; the label must land, fed-leader may give
  // up.
  std::jthread publisher([this, &announcement, stop] { publish(announcement, stop); });
  pod_label_->apply_until_done(true, stop);
}

void ManagerRunner::publish(const ha::LeaderAnnouncement& announcement, std::stop_token stop) {
  if (ha::publish_leader_with_retries(*host_, *events_, announcement, stop)) {
    spdlog::info("manager: published ConfigMap {}/{} (epoch {})", fedapi::kNamespace,
                 fedapi::kLeaderConfigMap, announcement.epoch);
  }
}

Status ManagerRunner::start_election(const std::string& identity) {
  const ManagerElectionOptions& o = options_.election;
  FED_TRY(o.timings.validate());
  etcd::ClientOptions client;
  client.endpoints = o.etcd_endpoints;
  client.tls = o.etcd_tls;
  // A call must end before the renew deadline, so that a stuck one cannot outlive leadership.
  client.request_timeout = o.timings.renew_deadline * 2 / 3;
  client.dial_timeout = o.timings.renew_deadline / 3;
  client.status_timeout = o.timings.renew_deadline / 2;
  // Where the etcd leader is, for routing only: a failed request or a response from a higher
  // raft term makes the client look again at once, and a follower forwards a write anyway. At
  // the renew period (100 ms) every manager of every host asked every member ten times a
  // second — 500 status calls a second with 5 hosts, load the federation etcd then lacked for
  // the managers' renewals (docs/HA.md).
  client.poll_period = std::chrono::seconds(1);
  FED_ASSIGN_OR_RETURN(election_etcd_, etcd::EtcdClient::create(std::move(client)));
  observed_leader_ = std::make_unique<ha::ObservedLeaderPublisher>(host_, host_id_);
  elector_ = std::make_unique<ha::LeaderElector>(
      *election_etcd_, o.key, identity, o.timings,
      ha::LeaderCallbacks{
          [this](const ha::LeaderRecord& record) {
            spdlog::info("manager {} leads the federation (epoch {}): starting the controllers",
                         record.holder, record.epoch);
            if (stopping_) return;
            leading_ = true;  // ready() now waits for the controllers
            leader_metrics_->set_leading(true);
            const auto wait = elector_->takeover_wait();
            if (wait) leader_metrics_->took_over(*wait);
            taking_over_ = ha::LeaderAnnouncement{record.holder, host_id_, record.epoch,
                                                  record.acquired_at, wait};
            const auto began = std::chrono::steady_clock::now();
            if (auto started = manager_->start_components(); !started && !stopping_) {
              spdlog::critical("manager: the controllers did not start: {}",
                               started.error().message());
              std::_Exit(1);
            }
            // What a takeover costs beyond the election (docs/BENCHMARKS.md reads it).
            const std::string slowest = manager_->slowest_starts();
            spdlog::info("manager: the controllers run ({} ms after taking over{})",
                         std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - began)
                             .count(),
                         slowest.empty() ? "" : "; slowest: " + slowest);
            pod_label_->apply_until_done(true, announcing_.get_token());
          },
          [] {
            spdlog::critical(
                "manager: leadership lost: replacing this process now, so that no write of a "
                "deposed leader lands (it starts again as a standby, in the same container)");
            agent::replace_process_image();
          },
          [this](const std::optional<ha::LeaderRecord>& leader) {
            leader_metrics_->observed(leader);
            if (!leading_) observed_leader_->observe(leader);
            if (leader) {
              spdlog::info("manager: the federation's leader is {} (epoch {})", leader->holder,
                           leader->epoch);
            } else {
              spdlog::info("manager: the federation has no leader");
            }
          },
          [this](bool reachable) {
            if (!reachable) {
              spdlog::warn("manager: the federation etcd does not answer (no quorum?): no leader");
            }
            if (!leading_)
              observed_leader_->observe(reachable ? elector_->observed() : std::nullopt);
          }});
  spdlog::info("manager {}: standing by for {} (caches warm, controllers stopped)", identity,
               o.key);
  election_ = std::jthread([this](std::stop_token stop) {
    // A container restarted after losing leadership still has its pod's label; it goes before
    // this manager campaigns, so that clearing it can never follow setting it.
    if (pod_label_->apply_until_done(false, stop)) elector_->run(stop);
  });
  return ok();
}

void ManagerRunner::stop() {
  stopping_ = true;
  announcing_.request_stop();
  if (announcer_.joinable()) announcer_.join();
  // The controllers stop before the resignation, so that the next leader never overlaps them.
  if (manager_) manager_->stop_components();
  // (After them: a takeover's start, which sets it, has ended.)
  if (publisher_.joinable()) publisher_.join();
  if (election_.joinable()) {
    election_.request_stop();
    election_.join();
  }
  if (leader_metrics_) leader_metrics_->set_leading(false);  // resigned, or never led
  if (manager_) manager_->stop();
}

}  // namespace fed::federation

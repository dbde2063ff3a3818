#pragma once
// `fed-agent manager`: the federation controllers on the host cluster. The role connects to the
// host, restores its IPAM, and builds one controller manager to which each module adds its
// controllers — membership (FederatedCluster → IPAM on both sides, Peerings, status;
// endpoint mappings; direct peerings), then offloading (virtual nodes, namespace offloading,
// reflection, deployment replication, the pod webhook, the virtual kubelet). The manager starts
// and stops them as one unit.

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/manager/ha/leader_announcement.hpp"
#include "agent/manager/ha/leader_elector.hpp"
#include "agent/manager/ha/leader_metrics.hpp"
#include "agent/manager/ha/leader_pod_label.hpp"
#include "agent/manager/ha/observed_leader_publisher.hpp"
#include "agent/manager/ipam/address_blocks.hpp"
#include "agent/manager/membership/cluster_ipam.hpp"
#include "agent/manager/offload/offload_controllers.hpp"
#include "agent/roles/role_runner.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/kube/event_recorder.hpp"

namespace fed::federation {

// Leader election among the managers of a federation (seed 000, docs/HA.md). No endpoints: this
// manager runs its controllers at once, alone (one replica).
struct ManagerElectionOptions {
  std::vector<std::string> etcd_endpoints;  // https URLs, one per etcd member
  etcd::TlsFiles etcd_tls;
  std::string key = "/kubectl-fed/manager/leader";
  std::string identity;  // empty: $POD_NAME, else the host name, and the process id
  ha::ElectionTimings timings;
};

struct ManagerOptions {
  offload::OffloadOptions offload;
  ManagerElectionOptions election;
  // The client-side limit of the manager's requests to the host API server, shared by every
  // controller (as kube-controller-manager's --kube-api-qps/--kube-api-burst): a safety net
  // against a runaway loop; the API server's priority and fairness protects it from load.
  // Offloading to n members writes about 2n objects on the host at once, and an endpoint
  // mapping costs two writes of its own (its finalizer, its status) besides its share of the
  // block writes, so mapping 200 a second needs about 450.
  double api_qps = 500;
  int api_burst = 1000;
  // The prefix length of the blocks the endpoint mappings are stored in, when the host's IPAM
  // has not chosen one yet (docs/DATAPATH.md "Endpoint mappings at scale").
  int ipam_block_length = fabric::ipam::kDefaultBlockLength;
};

class ManagerRunner final : public agent::RoleRunner {
 public:
  explicit ManagerRunner(ManagerOptions options = {}) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::Manager; }
  // Connects to the host (--kubeconfig/--context, else in-cluster), reads its federation
  // ConfigMap, restores its IPAM and starts the controllers — at once, or with leader election
  // once this manager leads (a standby keeps its caches warm meanwhile). Fails when the host was
  // never initialised (kubectl fed init).
  Status start(const agent::RoleContext& ctx) override;
  // Readiness does not say "leader" (standbys must be Ready for a Deployment to roll out; the
  // pod label does, docs/HA.md). Without election: the controllers run and the pod carries the
  // leader label. With election: the caches are synced and the pod's label is as wanted
  // (cleared at start-up, set once leading), and while leading the controllers run.
  bool ready() const override;
  void stop() override;

 private:
  // Campaigns, once the pod's leftover leader label is cleared; the controllers start once this
  // manager leads. Losing leadership ends the process at once (exit code 1): no write of a
  // deposed leader may land, and a restarted pod comes back as a standby.
  Status start_election(const std::string& identity);
  // Without election, once the controllers run: labels the pod and publishes fed-leader and
  // its Event at the same time. Returns early when `stop` is requested.
  void announce(const ha::LeaderAnnouncement& announcement, std::stop_token stop);
  // fed-leader and its Event, with retries; false if it gave up or was stopped.
  void publish(const ha::LeaderAnnouncement& announcement, std::stop_token stop);

  ManagerOptions options_;
  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;  // the host cluster's id
  std::unique_ptr<ClusterIpam> host_ipam_;
  std::unique_ptr<kube::EventRecorder> events_;  // about the federation's objects on the host
  std::unique_ptr<ha::LeaderPodLabel> pod_label_;
  std::unique_ptr<ha::LeaderMetrics> leader_metrics_;
  // The etcd client of the host controller and the state store (membership changes and state
  // copies: seconds, not the election's sub-second timeouts); declared before manager_, whose
  // components use it.
  std::unique_ptr<etcd::EtcdClient> hosts_etcd_;
  std::unique_ptr<kube::ControllerManager> manager_;
  std::unique_ptr<etcd::EtcdClient> election_etcd_;
  // What a non-leading manager tells its host about the leader (fed-leader).
  std::unique_ptr<ha::ObservedLeaderPublisher> observed_leader_;
  // Declared after what its started_leading thread uses, so destroyed (and joined) before it.
  std::unique_ptr<ha::LeaderElector> elector_;
  std::atomic<bool> started_{false};   // start() returned ok: ready() may read the members
  std::atomic<bool> leading_{false};   // started_leading was called
  std::atomic<bool> stopping_{false};  // stop() began: leading now starts nothing
  std::stop_source announcing_;        // stop() ends the label and ConfigMap retries
  std::jthread election_;
  std::jthread announcer_;  // without election: announce() at start
  // With election: the term being taken over (set before the controllers start), and the
  // thread publishing it, started once the host holds the restored state.
  std::optional<ha::LeaderAnnouncement> taking_over_;
  std::jthread publisher_;
};

}  // namespace fed::federation

#pragma once
// The leader+classifier policy's loop inside the etcd proxy: every classify_period it scrapes
// the current leader (LeaderSampler over the proxy's own mTLS client certificate), classifies
// the period with the XGBoost model, feeds the class to LeaderMovePolicy and, when that says
// so, sends MoveLeader to the leader naming the follower with the lowest peer round trip. The
// proxy's status pollers then see the new leader and drain connections to the old one.
// Everything stays in this process: unlike the thesis' open UDP socket, there is no channel
// another local process could use to redirect etcd traffic.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "agent/etcdproxy/classifier/leader_move_policy.hpp"
#include "agent/etcdproxy/classifier/leader_sampler.hpp"
#include "agent/etcdproxy/classifier/xgb_model.hpp"
#include "agent/etcdproxy/options.hpp"
#include "shared/etcd/client.hpp"
#include "shared/etcd/gateway_transport.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

// The last period's outcome, for status output.
struct LeaderHealth {
  std::optional<std::size_t> leader;
  std::optional<int> leader_class;  // nullopt: the scrape or the inference failed
  std::array<float, 4> probabilities{};
  std::string decision;  // the policy's reason, or the move made
  std::uint64_t moves = 0;
  std::chrono::system_clock::time_point time;  // when the period ended; epoch: none yet
};

// The policy's view of the followers: every member but the leader, healthy as the status
// pollers say, ranked by the leader's measured round trip to it (by member id).
classifier::PolicyInput policy_input(const etcd::ClusterView& view,
                                     std::optional<std::size_t> leader,
                                     std::optional<int> leader_class,
                                     const std::map<std::uint64_t, double>& peer_rtt_seconds);

class LeaderHealthMonitor final {
 public:
  // Loads the model and makes the scrape transport; `client` outlives the monitor.
  static Result<std::unique_ptr<LeaderHealthMonitor>> create(const EtcdProxyOptions& options,
                                                             etcd::EtcdClient& client,
                                                             metrics::Registry& registry);
  ~LeaderHealthMonitor();  // stop()
  LeaderHealthMonitor(const LeaderHealthMonitor&) = delete;
  LeaderHealthMonitor& operator=(const LeaderHealthMonitor&) = delete;

  void start();
  void stop();
  LeaderHealth last() const;

 private:
  LeaderHealthMonitor(const EtcdProxyOptions& options, etcd::EtcdClient& client,
                      std::unique_ptr<etcd::GatewayTransport> transport, classifier::XgbModel model,
                      metrics::Registry& registry);
  void run(std::stop_token stop);
  void period();

  EtcdProxyOptions options_;
  etcd::EtcdClient& client_;
  std::unique_ptr<etcd::GatewayTransport> transport_;
  classifier::XgbModel model_;
  classifier::LeaderSampler sampler_;
  classifier::LeaderMovePolicy policy_;
  std::optional<std::size_t> sampled_leader_;
  metrics::Gauge* class_gauge_ = nullptr;
  metrics::Family<metrics::Counter>* periods_ = nullptr;
  metrics::Family<metrics::Counter>* moves_ = nullptr;
  mutable std::mutex mu_;
  LeaderHealth last_;
  std::jthread thread_;
};

}  // namespace fed::etcdproxy

#include "agent/etcdproxy/leader_health_monitor.hpp"

#include <spdlog/spdlog.h>

#include <condition_variable>

namespace fed::etcdproxy {

using classifier::kFeatureCount;

classifier::PolicyInput policy_input(const etcd::ClusterView& view,
                                     std::optional<std::size_t> leader,
                                     std::optional<int> leader_class,
                                     const std::map<std::uint64_t, double>& peer_rtt_seconds) {
  classifier::PolicyInput in;
  in.leader = leader;
  in.leader_class = leader_class;
  for (std::size_t i = 0; i < view.members.size(); ++i) {
    if (leader && i == *leader) continue;
    const auto& m = view.members[i];
    classifier::Follower f;
    f.member = i;
    f.healthy = m.healthy && m.id != 0;  // a member that never answered cannot be named
    if (const auto it = peer_rtt_seconds.find(m.id); it != peer_rtt_seconds.end()) {
      f.peer_rtt_seconds = it->second;
    }
    in.followers.push_back(f);
  }
  return in;
}

Result<std::unique_ptr<LeaderHealthMonitor>> LeaderHealthMonitor::create(
    const EtcdProxyOptions& options, etcd::EtcdClient& client, metrics::Registry& registry) {
  FED_ASSIGN_OR_RETURN(auto model, classifier::XgbModel::load(options.classifier_model));
  if (model.num_features() != kFeatureCount || model.num_class() != 4) {
    return fail(ErrorCode::Invalid,
                "classifier model " + options.classifier_model + " takes " +
                    std::to_string(model.num_features()) + " features and " +
                    std::to_string(model.num_class()) + " classes; this proxy computes " +
                    std::to_string(kFeatureCount) +
                    " features for 4 classes (retrain with fed-etcd-classifier train)");
  }
  FED_ASSIGN_OR_RETURN(
      auto transport,
      etcd::GatewayTransport::create(options.members, options.status_tls, options.dial_timeout));
  return std::unique_ptr<LeaderHealthMonitor>(
      new LeaderHealthMonitor(options, client, std::move(transport), std::move(model), registry));
}

LeaderHealthMonitor::LeaderHealthMonitor(const EtcdProxyOptions& options, etcd::EtcdClient& client,
                                         std::unique_ptr<etcd::GatewayTransport> transport,
                                         classifier::XgbModel model, metrics::Registry& registry)
    : options_(options),
      client_(client),
      transport_(std::move(transport)),
      model_(std::move(model)),
      // A scrape may take a few delayed round trips, but never more than a period.
      sampler_(*transport_, options.classify_period, 3),
      policy_({.hold_periods = options.move_hold_periods,
               .cooldown_periods = options.move_cooldown_periods,
               .avoid_periods = 4 * (options.move_cooldown_periods + options.move_hold_periods)}) {
  class_gauge_ = &registry.gauge(
      "fed_etcd_proxy_leader_class",
      "The leader's last health class: 0 idle, 1 network delay, 2 overload, 3 both; -1 unknown.");
  class_gauge_->set(-1);
  periods_ = &registry.counter_family("fed_etcd_proxy_leader_classifications_total",
                                      "Classifier periods by the leader's class.", {"class"});
  moves_ = &registry.counter_family("fed_etcd_proxy_leader_moves_total",
                                    "MoveLeader calls the classifier policy made, by result.",
                                    {"result"});
}

LeaderHealthMonitor::~LeaderHealthMonitor() {
  stop();
}

void LeaderHealthMonitor::start() {
  thread_ = std::jthread([this](std::stop_token s) { run(s); });
}

void LeaderHealthMonitor::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

LeaderHealth LeaderHealthMonitor::last() const {
  std::lock_guard lock(mu_);
  return last_;
}

void LeaderHealthMonitor::run(std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  auto next = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    next += options_.classify_period;
    {
      std::unique_lock lock(mu);
      cv.wait_until(lock, stop, next, [] { return false; });
    }
    if (stop.stop_requested()) break;
    period();
    const auto now = std::chrono::steady_clock::now();
    if (now > next + options_.classify_period) next = now;  // fell behind: do not burst
  }
}

void LeaderHealthMonitor::period() {
  const auto leader = client_.leader();
  std::optional<int> cls;
  std::array<float, 4> proba{};
  std::map<std::uint64_t, double> rtt;
  if (leader) {
    if (sampled_leader_ != leader) sampler_.reset(*leader);
    sampled_leader_ = leader;
    auto obs = sampler_.observe(*leader);
    if (!obs) {
      spdlog::warn("etcd-proxy classifier: {}", obs.error().message());
    } else if (obs->features) {
      classifier::Matrix row;
      row.cols = kFeatureCount;
      row.values.assign(obs->features->begin(), obs->features->end());
      auto p = model_.predict_proba(row);
      if (!p) {
        spdlog::warn("etcd-proxy classifier: {}", p.error().message());
      } else {
        int best = 0;
        for (int c = 0; c < 4; ++c) {
          proba[static_cast<std::size_t>(c)] = (*p)[static_cast<std::size_t>(c)];
          if ((*p)[static_cast<std::size_t>(c)] > (*p)[static_cast<std::size_t>(best)]) best = c;
        }
        cls = best;
      }
      rtt = std::move(obs->peer_rtt_seconds);
    }
  }
  class_gauge_->set(cls ? *cls : -1);
  periods_->with({cls ? std::to_string(*cls) : "unknown"}).inc();
  const auto view = client_.view();
  auto decision = policy_.on_period(policy_input(view, leader, cls, rtt));
  std::string outcome = decision.reason;
  if (decision.target && leader) {
    const auto& target = view.members[*decision.target];
    auto moved = client_.move_leader(target.id);
    outcome = (moved ? "moved leadership " : "MoveLeader failed ") +
              view.members[*leader].endpoint + " -> " + target.endpoint + " (" + decision.reason +
              ")" + (moved ? "" : ": " + moved.error().message());
    moves_->with({moved ? "ok" : "failed"}).inc();
    if (moved) {
      spdlog::info("etcd-proxy classifier: {}", outcome);
    } else {
      spdlog::warn("etcd-proxy classifier: {}", outcome);
    }
  }
  std::lock_guard lock(mu_);
  last_.leader = leader;
  last_.leader_class = cls;
  last_.probabilities = proba;
  last_.decision = std::move(outcome);
  last_.moves = policy_.moves();
  last_.time = std::chrono::system_clock::now();
}

}  // namespace fed::etcdproxy

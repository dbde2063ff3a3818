#include "agent/etcdproxy/classifier/leader_features.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fed::etcdproxy::classifier {
namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();

void set(FeatureVector& v, Feature f, std::optional<double> x) {
  v[static_cast<std::size_t>(f)] = x ? static_cast<float>(*x) : kMissing;
}

}  // namespace

const std::array<std::string_view, kFeatureCount>& feature_names() {
  static const std::array<std::string_view, kFeatureCount> names = {
      "wal_write_bytes_rate",
      "client_grpc_sent_bytes_rate",
      "peer_sent_bytes_rate",
      "heartbeat_send_failures_rate",
      "slow_apply_rate",
      "peer_rtt_seconds",
      "wal_fsync_seconds",
      "backend_commit_seconds",
      "apply_seconds",
      "is_leader",
      "proposals_pending",
      "cpu_seconds_rate",
      "client_grpc_received_bytes_rate",
      "peer_received_bytes_rate",
      "grpc_started_rate",
      "slow_read_indexes_rate",
      "proposals_committed_rate",
      "scrape_seconds",
      "status_seconds",
      "status_seconds_window_min",
  };
  return names;
}

void FeatureExtractor::reset() {
  rates_.clear();
  last_peer_rtt_.reset();
  status_window_.clear();
}

std::optional<double> FeatureExtractor::histogram_mean(const Scrape& scrape,
                                                       std::string_view family,
                                                       Clock::time_point at, bool& first) {
  const auto h = scrape.histogram(family);
  if (!h) return std::nullopt;
  const std::string base(family);
  const auto count = rates_.observe(base + "_count", h->count, at);
  const auto sum = rates_.observe(base + "_sum", h->sum, at);
  if (!count || !sum) {
    first = true;
    return std::nullopt;
  }
  if (count->increase <= 0) return std::nullopt;
  return sum->increase / count->increase;
}

std::optional<FeatureVector> FeatureExtractor::observe(const Scrape& scrape, Clock::time_point at,
                                                       const Probes& probes) {
  FeatureVector v;
  v.fill(kMissing);
  bool first = false;
  auto counter_rate = [&](Feature f, std::string_view name) {
    const auto total = scrape.sum(name);
    if (!total) return;
    const auto r = rates_.rate(name, *total, at);
    if (!r) {
      first = true;
      return;
    }
    set(v, f, r);
  };
  counter_rate(Feature::WalWriteBytesRate, "etcd_disk_wal_write_bytes_total");
  counter_rate(Feature::ClientGrpcSentBytesRate, "etcd_network_client_grpc_sent_bytes_total");
  counter_rate(Feature::PeerSentBytesRate, "etcd_network_peer_sent_bytes_total");
  counter_rate(Feature::HeartbeatSendFailureRate, "etcd_server_heartbeat_send_failures_total");
  counter_rate(Feature::SlowApplyRate, "etcd_server_slow_apply_total");
  counter_rate(Feature::CpuSecondsRate, "process_cpu_seconds_total");
  counter_rate(Feature::ClientGrpcReceivedBytesRate,
               "etcd_network_client_grpc_received_bytes_total");
  counter_rate(Feature::PeerReceivedBytesRate, "etcd_network_peer_received_bytes_total");
  counter_rate(Feature::GrpcStartedRate, "grpc_server_started_total");
  counter_rate(Feature::SlowReadIndexRate, "etcd_server_slow_read_indexes_total");
  counter_rate(Feature::ProposalsCommittedRate, "etcd_server_proposals_committed_total");

  // Peers are probed every few seconds, so a period often has no new round trip: keep the last.
  if (const auto rtt =
          histogram_mean(scrape, "etcd_network_peer_round_trip_time_seconds", at, first)) {
    last_peer_rtt_ = rtt;
  }
  set(v, Feature::PeerRoundTripSeconds, last_peer_rtt_);
  // No fsync/commit/apply in a period means none was slow: 0, not missing.
  auto mean_or_zero = [&](Feature f, std::string_view family) {
    if (!scrape.histogram(family)) return;
    set(v, f, histogram_mean(scrape, family, at, first).value_or(0.0));
  };
  mean_or_zero(Feature::WalFsyncSeconds, "etcd_disk_wal_fsync_duration_seconds");
  mean_or_zero(Feature::BackendCommitSeconds, "etcd_disk_backend_commit_duration_seconds");
  mean_or_zero(Feature::ApplySeconds, "etcd_server_apply_duration_seconds");

  set(v, Feature::IsLeader, scrape.sum("etcd_server_is_leader"));
  set(v, Feature::ProposalsPending, scrape.sum("etcd_server_proposals_pending"));
  set(v, Feature::ScrapeSeconds, probes.scrape_seconds);
  set(v, Feature::StatusSeconds, probes.status_seconds);
  if (probes.status_seconds) {
    status_window_.push_back(*probes.status_seconds);
    if (status_window_.size() > kStatusWindow) status_window_.pop_front();
  }
  if (!status_window_.empty()) {
    set(v, Feature::StatusSecondsWindowMin,
        *std::min_element(status_window_.begin(), status_window_.end()));
  }
  if (first) return std::nullopt;
  return v;
}

}  // namespace fed::etcdproxy::classifier

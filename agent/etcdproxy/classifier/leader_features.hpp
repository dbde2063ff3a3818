#pragma once
// The leader-health feature vector, one per scrape period, from a member's /metrics and two
// probes the scraper times itself. Features 0-4 are the thesis' five counters (as per-second
// rates); the rest are what else etcd 3.5 exposes that tells network delay from overload:
// histogram means over the period (peer round trip, WAL fsync, backend commit, apply), gauges
// (is_leader, proposals pending), CPU and traffic rates, and the scrape's and a status call's
// round trips as the scraper measured them (a delayed leader answers everything late).
// A metric the scrape lacks gives NaN, which XGBoost treats as missing.

#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string_view>

#include "agent/etcdproxy/classifier/counter_rates.hpp"
#include "agent/etcdproxy/classifier/prom_text.hpp"

namespace fed::etcdproxy::classifier {

enum class Feature : std::size_t {
  WalWriteBytesRate,         // etcd_disk_wal_write_bytes_total
  ClientGrpcSentBytesRate,   // etcd_network_client_grpc_sent_bytes_total
  PeerSentBytesRate,         // etcd_network_peer_sent_bytes_total, summed over To
  HeartbeatSendFailureRate,  // etcd_server_heartbeat_send_failures_total
  SlowApplyRate,             // etcd_server_slow_apply_total
  PeerRoundTripSeconds,      // etcd_network_peer_round_trip_time_seconds, mean (kept if no probe)
  WalFsyncSeconds,           // etcd_disk_wal_fsync_duration_seconds, mean over the period
  BackendCommitSeconds,      // etcd_disk_backend_commit_duration_seconds, mean
  ApplySeconds,              // etcd_server_apply_duration_seconds, mean
  IsLeader,                  // etcd_server_is_leader
  ProposalsPending,          // etcd_server_proposals_pending
  CpuSecondsRate,            // process_cpu_seconds_total
  ClientGrpcReceivedBytesRate,
  PeerReceivedBytesRate,
  GrpcStartedRate,    // grpc_server_started_total
  SlowReadIndexRate,  // etcd_server_slow_read_indexes_total
  ProposalsCommittedRate,
  ScrapeSeconds,  // the scraper's GET /metrics round trip
  StatusSeconds,  // the scraper's fastest Maintenance.Status round trip (NaN: not measured)
  // The lowest StatusSeconds of the last kStatusWindow periods: a base round trip, as TCP's
  // min-RTT filter keeps one. Queueing on an overloaded member inflates single periods; only
  // a delayed network lifts all of them.
  StatusSecondsWindowMin,
  Count_,
};

inline constexpr std::size_t kFeatureCount = static_cast<std::size_t>(Feature::Count_);
// Periods the StatusSecondsWindowMin filter spans (a delay shows fully this many periods late).
inline constexpr std::size_t kStatusWindow = 8;
// The thesis' feature set: the first five.
inline constexpr std::size_t kPaperFeatureCount = 5;

using FeatureVector = std::array<float, kFeatureCount>;

// Column names for CSV headers and reports, in Feature order.
const std::array<std::string_view, kFeatureCount>& feature_names();

// What the scraper measured itself in the period.
struct Probes {
  double scrape_seconds = 0;
  std::optional<double> status_seconds;
};

// Turns successive scrapes of ONE member into feature vectors. Not thread-safe.
class FeatureExtractor final {
 public:
  using Clock = CounterRates::Clock;

  // One scrape taken at `at`. nullopt for the first one (rates need two) or a non-advancing time.
  std::optional<FeatureVector> observe(const Scrape& scrape, Clock::time_point at,
                                       const Probes& probes);
  // Forgets the previous scrape (the leader changed, or the member restarted).
  void reset();

 private:
  // Mean of a histogram's new observations since the last scrape; nullopt when none.
  std::optional<double> histogram_mean(const Scrape& scrape, std::string_view family,
                                       Clock::time_point at, bool& first);

  CounterRates rates_;
  std::optional<double> last_peer_rtt_;
  std::deque<double> status_window_;
};

}  // namespace fed::etcdproxy::classifier

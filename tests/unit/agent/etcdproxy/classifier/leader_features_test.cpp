#include "agent/etcdproxy/classifier/leader_features.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using namespace fed::etcdproxy::classifier;
using namespace std::chrono_literals;

namespace {

// A leader's scrape after `k` steps: every counter grows linearly with k.
std::string scrape_text(double k, bool with_rtt_probe) {
  auto line = [](const std::string& name, double v) {
    return name + " " + std::to_string(v) + "\n";
  };
  std::string s;
  s += line("etcd_disk_wal_write_bytes_total", 1000 * k);
  s += line("etcd_network_client_grpc_sent_bytes_total", 500 * k);
  s += "etcd_network_peer_sent_bytes_total{To=\"a\"} " + std::to_string(100 * k) + "\n";
  s += "etcd_network_peer_sent_bytes_total{To=\"b\"} " + std::to_string(300 * k) + "\n";
  s += line("etcd_server_heartbeat_send_failures_total", 0);
  s += line("etcd_server_slow_apply_total", 2 * k);
  s += line("etcd_disk_wal_fsync_duration_seconds_sum", 0.004 * k);
  s += line("etcd_disk_wal_fsync_duration_seconds_count", 2 * k);
  s += line("etcd_disk_backend_commit_duration_seconds_sum", 0.0);
  s += line("etcd_disk_backend_commit_duration_seconds_count", 7);  // no commit in the period
  const double probes = with_rtt_probe ? k : 1;
  s += "etcd_network_peer_round_trip_time_seconds_sum{To=\"a\"} " + std::to_string(0.05 * probes) +
       "\n";
  s += "etcd_network_peer_round_trip_time_seconds_count{To=\"a\"} " + std::to_string(probes) + "\n";
  s += line("etcd_server_is_leader", 1);
  s += line("etcd_server_proposals_pending", 3);
  s += line("process_cpu_seconds_total", 0.5 * k);
  return s;
}

std::size_t at(Feature f) {
  return static_cast<std::size_t>(f);
}

}  // namespace

TEST_CASE("the paper's five rates, histogram means, gauges and probes") {
  FeatureExtractor fx;
  const auto t0 = FeatureExtractor::Clock::time_point{} + 10s;
  auto s1 = Scrape::parse(scrape_text(1, true));
  auto s2 = Scrape::parse(scrape_text(3, true));
  REQUIRE(s1);
  REQUIRE(s2);
  CHECK_FALSE(fx.observe(*s1, t0, {0.01, 0.02}));  // rates need two scrapes
  auto v = fx.observe(*s2, t0 + 2s, {0.03, std::nullopt});
  REQUIRE(v);
  CHECK((*v)[at(Feature::WalWriteBytesRate)] == doctest::Approx(1000));
  CHECK((*v)[at(Feature::ClientGrpcSentBytesRate)] == doctest::Approx(500));
  CHECK((*v)[at(Feature::PeerSentBytesRate)] == doctest::Approx(400));  // summed over To
  CHECK((*v)[at(Feature::HeartbeatSendFailureRate)] == doctest::Approx(0));
  CHECK((*v)[at(Feature::SlowApplyRate)] == doctest::Approx(2));
  CHECK((*v)[at(Feature::WalFsyncSeconds)] == doctest::Approx(0.002));
  CHECK((*v)[at(Feature::BackendCommitSeconds)] == doctest::Approx(0));
  CHECK((*v)[at(Feature::PeerRoundTripSeconds)] == doctest::Approx(0.05));
  CHECK((*v)[at(Feature::IsLeader)] == doctest::Approx(1));
  CHECK((*v)[at(Feature::ProposalsPending)] == doctest::Approx(3));
  CHECK((*v)[at(Feature::CpuSecondsRate)] == doctest::Approx(0.5));
  CHECK((*v)[at(Feature::ScrapeSeconds)] == doctest::Approx(0.03));
  CHECK(std::isnan((*v)[at(Feature::StatusSeconds)]));
  CHECK(std::isnan((*v)[at(Feature::GrpcStartedRate)]));  // not in this scrape: missing
  CHECK(feature_names().size() == kFeatureCount);
  CHECK(feature_names()[0] == "wal_write_bytes_rate");
}

TEST_CASE("the peer round trip is kept through periods without a probe") {
  FeatureExtractor fx;
  const auto t0 = FeatureExtractor::Clock::time_point{} + 10s;
  (void)fx.observe(*Scrape::parse(scrape_text(1, true)), t0, {});
  REQUIRE(fx.observe(*Scrape::parse(scrape_text(2, true)), t0 + 1s, {}));
  // k=3 with the probe count frozen at k=2's value would need the same count: simulate with
  // an unchanged scrape of the histogram (with_rtt_probe=false keeps count at 1, a reset).
  auto v = fx.observe(*Scrape::parse(scrape_text(2, true)), t0 + 2s, {});
  REQUIRE(v);
  CHECK((*v)[at(Feature::PeerRoundTripSeconds)] == doctest::Approx(0.05));
  CHECK((*v)[at(Feature::WalWriteBytesRate)] == doctest::Approx(0));
}

TEST_CASE("the status round trip's window minimum spans the last kStatusWindow periods") {
  FeatureExtractor fx;
  const auto t0 = FeatureExtractor::Clock::time_point{} + 10s;
  (void)fx.observe(*Scrape::parse(scrape_text(0, true)), t0, {0.01, 0.002});
  float last_min = 0;
  for (std::size_t i = 1; i <= kStatusWindow; ++i) {  // queueing spikes, then a delay of 40 ms
    auto v = fx.observe(*Scrape::parse(scrape_text(static_cast<double>(i), true)),
                        t0 + std::chrono::seconds(i), {0.01, i % 2 == 0 ? 0.090 : 0.040});
    REQUIRE(v);
    last_min = (*v)[at(Feature::StatusSecondsWindowMin)];
  }
  CHECK(last_min == doctest::Approx(0.040));  // the 2 ms period has left the window
  auto v = fx.observe(*Scrape::parse(scrape_text(20, true)), t0 + 20s, {0.01, 0.001});
  REQUIRE(v);
  CHECK((*v)[at(Feature::StatusSecondsWindowMin)] == doctest::Approx(0.001));
  fx.reset();
  (void)fx.observe(*Scrape::parse(scrape_text(21, true)), t0 + 21s, {0.01, 0.05});
  v = fx.observe(*Scrape::parse(scrape_text(22, true)), t0 + 22s, {0.01, 0.06});
  REQUIRE(v);
  CHECK((*v)[at(Feature::StatusSecondsWindowMin)] == doctest::Approx(0.05));
}

TEST_CASE("reset() starts over: the next scrape is a first one again") {
  FeatureExtractor fx;
  const auto t0 = FeatureExtractor::Clock::time_point{} + 10s;
  (void)fx.observe(*Scrape::parse(scrape_text(1, true)), t0, {});
  fx.reset();
  CHECK_FALSE(fx.observe(*Scrape::parse(scrape_text(2, true)), t0 + 1s, {}));
  CHECK(fx.observe(*Scrape::parse(scrape_text(3, true)), t0 + 2s, {}));
}

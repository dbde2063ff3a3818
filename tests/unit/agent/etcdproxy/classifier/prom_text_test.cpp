#include "agent/etcdproxy/classifier/prom_text.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace fed::etcdproxy::classifier;

namespace {

// Shaped like etcd 3.5's /metrics.
constexpr const char* kEtcd =
    R"(# HELP etcd_disk_wal_fsync_duration_seconds The latency distributions of fsync called by WAL.
# TYPE etcd_disk_wal_fsync_duration_seconds histogram
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 2
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.002"} 4
etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} 6
etcd_disk_wal_fsync_duration_seconds_sum 0.0125
etcd_disk_wal_fsync_duration_seconds_count 6
# HELP etcd_network_peer_sent_bytes_total The total number of bytes sent to peers.
# TYPE etcd_network_peer_sent_bytes_total counter
etcd_network_peer_sent_bytes_total{To="2b2d9d7fd1d3e2a0"} 1000
etcd_network_peer_sent_bytes_total{To="9c2b1e3c4f1e7a11"} 2.5e3
# TYPE etcd_server_is_leader gauge
etcd_server_is_leader 1
etcd_server_go_version{server_go_version="go1.23.4"} 1
# a free comment

etcd_network_peer_round_trip_time_seconds_bucket{To="a",le="0.0001"} 0
etcd_network_peer_round_trip_time_seconds_bucket{To="a",le="+Inf"} 3
etcd_network_peer_round_trip_time_seconds_sum{To="a"} 0.03
etcd_network_peer_round_trip_time_seconds_count{To="a"} 3
etcd_network_peer_round_trip_time_seconds_bucket{To="b",le="0.0001"} 1
etcd_network_peer_round_trip_time_seconds_bucket{To="b",le="+Inf"} 1
etcd_network_peer_round_trip_time_seconds_sum{To="b"} 0.00005
etcd_network_peer_round_trip_time_seconds_count{To="b"} 1
)";

}  // namespace

TEST_CASE("counters, gauges and labelled series of an etcd scrape") {
  auto s = Scrape::parse(kEtcd);
  REQUIRE(s);
  CHECK(s->type("etcd_network_peer_sent_bytes_total") == MetricType::Counter);
  CHECK(s->type("etcd_server_is_leader") == MetricType::Gauge);
  CHECK(s->type("etcd_disk_wal_fsync_duration_seconds") == MetricType::Histogram);
  CHECK(s->type("nothing") == MetricType::Untyped);
  CHECK(s->sum("etcd_network_peer_sent_bytes_total") == doctest::Approx(3500));
  CHECK(s->sum("etcd_network_peer_sent_bytes_total", {{"To", "2b2d9d7fd1d3e2a0"}}) ==
        doctest::Approx(1000));
  CHECK_FALSE(s->sum("etcd_network_peer_sent_bytes_total", {{"To", "x"}}));
  CHECK(s->sum("etcd_server_is_leader") == doctest::Approx(1));
  CHECK_FALSE(s->sum("etcd_absent_total"));
  CHECK(s->label_values("etcd_network_peer_sent_bytes_total", "To") ==
        std::vector<std::string>{"2b2d9d7fd1d3e2a0", "9c2b1e3c4f1e7a11"});
}

TEST_CASE("histograms: buckets by bound, _sum and _count, summed over series") {
  auto s = Scrape::parse(kEtcd);
  REQUIRE(s);
  auto h = s->histogram("etcd_disk_wal_fsync_duration_seconds");
  REQUIRE(h);
  CHECK(h->count == 6);
  CHECK(h->sum == doctest::Approx(0.0125));
  REQUIRE(h->buckets.size() == 3);
  CHECK(h->buckets[0].first == doctest::Approx(0.001));
  CHECK(h->buckets[1].second == 4);
  CHECK(std::isinf(h->buckets[2].first));
  auto rtt = s->histogram("etcd_network_peer_round_trip_time_seconds");
  REQUIRE(rtt);
  CHECK(rtt->count == 4);
  CHECK(rtt->buckets.front().second == 1);  // le=0.0001 summed over To=a and To=b
  auto only_b = s->histogram("etcd_network_peer_round_trip_time_seconds", {{"To", "b"}});
  REQUIRE(only_b);
  CHECK(only_b->sum == doctest::Approx(0.00005));
  CHECK_FALSE(s->histogram("etcd_server_is_leader"));
}

TEST_CASE("label values with escapes, special values and timestamps") {
  auto s = Scrape::parse(
      "m{path=\"C:\\\\dir\",msg=\"say \\\"hi\\\"\\nbye\",empty=\"\"} 1 1700000000000\n"
      "nan_metric NaN\n"
      "up_inf +Inf\n"
      "down_inf -Inf\n"
      "  spaced {a=\"1\" , b=\"2\",} 7\r\n");
  REQUIRE(s);
  REQUIRE(s->samples().size() == 5);
  const auto& m = s->samples()[0];
  CHECK(m.label("path") == "C:\\dir");
  CHECK(m.label("msg") == "say \"hi\"\nbye");
  CHECK(m.label("empty") == "");
  CHECK_FALSE(m.label("nope"));
  CHECK(std::isnan(s->samples()[1].value));
  CHECK(s->samples()[2].value > 0);
  CHECK(std::isinf(s->samples()[3].value));
  CHECK(s->samples()[4].label("b") == "2");
  CHECK(s->samples()[4].value == 7);
}

TEST_CASE("a malformed line is named with its number and text") {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {
           Case{"ok 1\nbroken{a=\"1\" 2\n", "line 2"},
           Case{"x{a=1} 2\n", "quoted"},
           Case{"x{a=\"1\\q\"} 2\n", "escape"},
           Case{"x{a=\"1} 2\n", "unterminated"},
           Case{"x 12abc\n", "bad value"},
           Case{"x\n", "value"},
           Case{"9x 1\n", "metric name"},
           Case{"x 1 2 3\n", "after the value"},
           Case{"# TYPE x sometype\n", "TYPE"},
       }) {
    CAPTURE(c.text);
    auto s = Scrape::parse(c.text);
    REQUIRE_FALSE(s);
    CHECK(s.error().code() == fed::ErrorCode::Invalid);
    CHECK(s.error().message().find(c.says) != std::string::npos);
    CHECK(s.error().message().find('`') != std::string::npos);
  }
}

TEST_CASE("values") {
  CHECK(parse_prom_value("1.5e-3") == doctest::Approx(0.0015));
  CHECK(parse_prom_value("-2") == doctest::Approx(-2));
  CHECK_FALSE(parse_prom_value(""));
  CHECK_FALSE(parse_prom_value("1,5"));
  CHECK_FALSE(parse_prom_value("inf"));  // only the format's spelling
}

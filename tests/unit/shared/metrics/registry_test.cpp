#include "shared/metrics/registry.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "shared/metrics/text_format.hpp"

using fed::metrics::Registry;
using fed::metrics::Type;

TEST_CASE("unlabelled counter and gauge render HELP, TYPE and the value") {
  Registry r;
  auto& c = r.counter("fed_reconciles_total", "Reconciles run.");
  auto& g = r.gauge("fed_queue_depth", "Keys waiting in the queue.");
  c.inc();
  c.inc(2.5);
  g.set(7);
  g.dec(2);
  CHECK(r.render() ==
        "# HELP fed_queue_depth Keys waiting in the queue.\n"
        "# TYPE fed_queue_depth gauge\n"
        "fed_queue_depth 5\n"
        "# HELP fed_reconciles_total Reconciles run.\n"
        "# TYPE fed_reconciles_total counter\n"
        "fed_reconciles_total 3.5\n");
}

TEST_CASE("labelled families render one sorted line per series, with escaped values") {
  Registry r;
  auto& requests =
      r.counter_family("fed_http_requests_total", "HTTP requests served.", {"path", "code"});
  requests.with({"/readyz", "503"}).inc();
  requests.with({"/healthz", "200"}).inc(3);
  requests.with({"a\"b\\c\nd", "200"}).inc();
  // A family with labels but no series yet renders nothing at all.
  r.gauge_family("fed_peers", "Peers by state.", {"state"});
  CHECK(r.render() ==
        "# HELP fed_http_requests_total HTTP requests served.\n"
        "# TYPE fed_http_requests_total counter\n"
        "fed_http_requests_total{path=\"/healthz\",code=\"200\"} 3\n"
        "fed_http_requests_total{path=\"/readyz\",code=\"503\"} 1\n"
        "fed_http_requests_total{path=\"a\\\"b\\\\c\\nd\",code=\"200\"} 1\n");

  requests.remove({"/readyz", "503"});
  CHECK(r.render().find("/readyz") == std::string::npos);
}

TEST_CASE("histogram renders cumulative buckets, +Inf, sum and count") {
  Registry r;
  auto& h = r.histogram("fed_sync_seconds", "Time to sync.", {0.1, 0.5, 1});
  h.observe(0.05);
  h.observe(0.1);  // le is inclusive
  h.observe(0.7);
  h.observe(3);
  CHECK(r.render() ==
        "# HELP fed_sync_seconds Time to sync.\n"
        "# TYPE fed_sync_seconds histogram\n"
        "fed_sync_seconds_bucket{le=\"0.1\"} 2\n"
        "fed_sync_seconds_bucket{le=\"0.5\"} 2\n"
        "fed_sync_seconds_bucket{le=\"1\"} 3\n"
        "fed_sync_seconds_bucket{le=\"+Inf\"} 4\n"
        "fed_sync_seconds_sum 3.85\n"
        "fed_sync_seconds_count 4\n");
}

TEST_CASE("labelled histogram puts le last; an explicit +Inf bound is dropped") {
  Registry r;
  auto& h = r.histogram_family("fed_req_seconds", "Request time.", {"verb"},
                               {0.25, 2.5, std::numeric_limits<double>::infinity()});
  h.with({"GET"}).observe(1);
  CHECK(r.render() ==
        "# HELP fed_req_seconds Request time.\n"
        "# TYPE fed_req_seconds histogram\n"
        "fed_req_seconds_bucket{verb=\"GET\",le=\"0.25\"} 0\n"
        "fed_req_seconds_bucket{verb=\"GET\",le=\"2.5\"} 1\n"
        "fed_req_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 1\n"
        "fed_req_seconds_sum{verb=\"GET\"} 1\n"
        "fed_req_seconds_count{verb=\"GET\"} 1\n");
}

TEST_CASE("HELP text is escaped; callbacks are sampled at each render") {
  Registry r;
  double v = 1;
  r.callback("fed_sampled", "Line one\nback\\slash", Type::Gauge, [&v] { return v; });
  CHECK(r.render() ==
        "# HELP fed_sampled Line one\\nback\\\\slash\n"
        "# TYPE fed_sampled gauge\n"
        "fed_sampled 1\n");
  v = 0.125;
  CHECK(r.render().find("fed_sampled 0.125\n") != std::string::npos);
}

TEST_CASE("re-registering the same family returns it") {
  Registry r;
  auto& a = r.counter_family("fed_x_total", "X.", {"k"});
  auto& b = r.counter_family("fed_x_total", "X.", {"k"});
  CHECK(&a == &b);
  CHECK(&r.counter("fed_y_total", "Y.") == &r.counter("fed_y_total", "Y."));
}

TEST_CASE("value formatting and name validation") {
  using fed::metrics::format_value;
  CHECK(format_value(0) == "0");
  CHECK(format_value(-0.0) == "0");
  CHECK(format_value(42) == "42");
  CHECK(format_value(-3) == "-3");
  CHECK(format_value(0.005) == "0.005");
  CHECK(format_value(2.5) == "2.5");
  CHECK(format_value(1e-7) == "1e-07");
  CHECK(format_value(1e20) == "1e+20");
  CHECK(format_value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(format_value(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(format_value(std::nan("")) == "NaN");
  CHECK(fed::metrics::valid_metric_name("fed:rule_x_total"));
  CHECK_FALSE(fed::metrics::valid_metric_name("9lives"));
  CHECK_FALSE(fed::metrics::valid_metric_name("a-b"));
  CHECK(fed::metrics::valid_label_name("code"));
  CHECK_FALSE(fed::metrics::valid_label_name("__name__"));
  CHECK_FALSE(fed::metrics::valid_label_name("a:b"));
  CHECK(fed::metrics::escape_label_value("a\"\\\n") == "a\\\"\\\\\\n");
}

TEST_CASE("bucket helpers") {
  CHECK(fed::metrics::default_buckets().size() == 11);
  CHECK(fed::metrics::linear_buckets(1, 2, 3) == std::vector<double>{1, 3, 5});
  CHECK(fed::metrics::exponential_buckets(1, 2, 4) == std::vector<double>{1, 2, 4, 8});
}

TEST_CASE("concurrent updates are all counted") {
  Registry r;
  auto& family = r.counter_family("fed_hits_total", "Hits.", {"worker"});
  auto& h = r.histogram("fed_lat_seconds", "Latency.", {1});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        family.with({std::to_string(t % 2)}).inc();
        h.observe(0.5);
        if (i % 100 == 0) (void)r.render();
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(family.with({"0"}).value() == 2000);
  CHECK(family.with({"1"}).value() == 2000);
  CHECK(h.snapshot().count == 4000);
  CHECK(h.snapshot().cumulative.front() == 4000);
}

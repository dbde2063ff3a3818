// Table 6.1 of the thesis, with a real kube-apiserver: a serial ConfigMap create+get workload at
// 0/15/30/45 ms per-member egress delay, kube-apiserver talking to the three members directly
// (clientv3's round-robin: RR) vs through the etcd proxy in leader mode (PL). Prints one row per
// delay with RR/PL next to the published 1.015 / 1.15 / 1.216 / 1.267.
// FED_BENCH_DELAYS="0,15,30,45" and FED_BENCH_COUNT=200 (rounds; 2 requests each) override.
#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "agent/etcdproxy/etcd_proxy.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/util/percentile.hpp"
#include "shared/util/strings.hpp"
#include "tests/bench/agent/etcdproxy/apiserver_fixture.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

using namespace fed;
using namespace std::chrono_literals;

namespace {

std::vector<int> delays() {
  const char* env = std::getenv("FED_BENCH_DELAYS");
  std::vector<int> out;
  for (const auto& d : util::split(env != nullptr ? env : "0,15,30,45", ',')) {
    if (!d.empty()) out.push_back(std::atoi(d.c_str()));
  }
  return out;
}

int rounds() {
  const char* env = std::getenv("FED_BENCH_COUNT");
  return env != nullptr ? std::atoi(env) : 200;
}

struct Cell {
  double seconds = 0;
  int requests = 0;
  int failed = 0;
  double p50 = 0, p99 = 0;
};

// Starts kube-apiserver on `servers`, warms up, runs the measured workload, stops it.
Cell measure(const etcdtest::Cluster& cluster, const std::string& servers, const std::string& tag,
             int count) {
  REQUIRE_MESSAGE(etcdtest::harness("apiserver " + cluster.dir() + " " + servers) == 0,
                  "kube-apiserver did not start; log: " << cluster.dir() << "/apiserver.log");
  auto o = etcdbench::apiserver_workload(cluster, tag + "-warm", 10);
  (void)etcdbench::run_configmap_workload(o);
  o.prefix = tag;
  o.count = count;
  auto r = etcdbench::run_configmap_workload(o);
  etcdtest::harness("stop-apiserver " + cluster.dir());
  REQUIRE(r);
  for (const auto& e : r->errors) MESSAGE(tag << " error: " << e);
  return {r->seconds, r->requests, r->failed, util::percentile(r->latencies_ms, 0.5),
          util::percentile(r->latencies_ms, 0.99)};
}

}  // namespace

TEST_CASE("Table 6.1: kube-apiserver serial workload, round-robin vs pick-leader proxy") {
  spdlog::set_level(spdlog::level::warn);
  const std::map<int, double> published = {{0, 1.015}, {15, 1.15}, {30, 1.216}, {45, 1.267}};
  const int count = rounds();
  std::string table =
      "| delay | RR (s) | PL (s) | RR/PL | published RR/PL | RR p50/p99 ms | PL p50/p99 ms | "
      "failed RR/PL |\n|---|---|---|---|---|---|---|---|\n";
  for (const int d : delays()) {
    etcdtest::Cluster cluster(d);
    REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
    etcdtest::InClientNetns netns;
    REQUIRE(netns.ok());
    const std::string tag = "d" + std::to_string(d);
    const Cell rr = measure(cluster,
                            std::string(etcdtest::kMemberUrls[0]) + "," + etcdtest::kMemberUrls[1] +
                                "," + etcdtest::kMemberUrls[2],
                            tag + "-rr", count);

    metrics::Registry registry;
    auto po = etcdbench::proxy_options(cluster);
    po.poll_period = 500ms;
    auto proxy = etcdbench::start_proxy(po, registry);
    const Cell pl = measure(cluster, etcdbench::kProxyUrl, tag + "-pl", count);
    const auto view = proxy->view();
    proxy->stop();

    const double ratio = rr.seconds / pl.seconds;
    char row[512];
    std::snprintf(
        row, sizeof(row),
        "| %d ms | %.2f | %.2f | **%.3f** | %s | %.1f / %.1f | %.1f / %.1f | %d / %d |\n", d,
        rr.seconds, pl.seconds, ratio,
        published.count(d) != 0 ? std::to_string(published.at(d)).substr(0, 5).c_str() : "-",
        rr.p50, rr.p99, pl.p50, pl.p99, rr.failed, pl.failed);
    table += row;
    MESSAGE("delay " << d << " ms: " << rr.requests << " requests each; RR " << rr.seconds
                     << " s, PL " << pl.seconds << " s, RR/PL " << ratio << "; proxy leader #"
                     << (view.leader ? static_cast<int>(*view.leader) + 1 : 0)
                     << ", leader changes " << view.leader_changes);
    MESSAGE("proxy metrics:\n" << registry.render());
    CHECK(rr.failed == 0);
    CHECK(pl.failed == 0);
  }
  std::printf("\nTable 6.1 (%d serial rounds of ConfigMap create + get = %d requests per cell)\n%s",
              count, 2 * count, table.c_str());
}

// Benchmark B1 of spec 002 §3.4 (IPAM only): m = 5 concurrent clients, each a virtual kubelet
// serving one peer, send n MapEndpointIP requests for endpoints that each need a new
// ExternalCIDR address; t is the wall time from the common start to the last answer and
// a = t / r the average per request, as the thesis computes it. Published: a = 0.521 s at
// r = 500 and 0.675 s at r = 1 000. Also reported: per-request latency percentiles (lock wait
// included), the process CPU time per request (what t/r would be on an idle machine: the
// shared 2-core hosts inflate wall time by whatever else runs), and the cost of serialising
// the whole state afterwards, which the manager pays when it persists the IpamState object.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "agent/manager/ipam/api_convert.hpp"
#include "agent/manager/ipam/ipam.hpp"
#include "shared/util/percentile.hpp"

using Clock = std::chrono::steady_clock;
using fed::fabric::ipam::Ipam;
using fed::net::Cidr;
using fed::net::Ipv4;

namespace {

constexpr int kClients = 5;
constexpr int kRepeats = 5;  // each row is the median run of these

struct Run {
  double total_s = 0;             // t
  double cpu_s = 0;               // process CPU time of the clients, all threads
  std::vector<double> latencies;  // seconds, every request
  double serialise_s = 0;         // snapshot + JSON text of the final state
  std::size_t state_bytes = 0;
};

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

Cidr cidr(const char* s) {
  return *Cidr::parse(s);
}

Run run_once(int n) {
  Ipam ipam;
  REQUIRE(ipam.install({cidr("10.241.0.0/16"), cidr("10.101.0.0/16"), {}}));  // ExternalCIDR /16
  for (int c = 0; c < kClients; ++c) {
    const std::string id = "c" + std::to_string(c + 2);
    const std::string pod = "10.24" + std::to_string(c + 2) + ".0.0/16";
    REQUIRE(ipam.get_or_remap_networks(id, cidr(pod.c_str()), cidr("10.0.0.0/16")));
    REQUIRE(ipam.set_local_remaps(id, {std::nullopt, cidr("10.1.0.0/16")}));
  }
  Run run;
  std::vector<std::vector<double>> per_client(kClients);
  std::vector<Clock::time_point> started(kClients), finished(kClients);
  std::vector<int> failures(kClients, 0);
  std::latch ready(kClients + 1);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      const std::string id = "c" + std::to_string(c + 2);
      // Endpoints of a third network, distinct across clients: every request allocates.
      const std::uint32_t base = Ipv4::parse("172.20.0.0")->value + std::uint32_t(c) * 100000;
      per_client[c].reserve(n);
      ready.arrive_and_wait();
      started[c] = Clock::now();
      for (int i = 0; i < n; ++i) {
        auto start = Clock::now();
        auto mapped = ipam.map_endpoint_ip(id, Ipv4{base + std::uint32_t(i)});
        per_client[c].push_back(std::chrono::duration<double>(Clock::now() - start).count());
        if (!mapped) ++failures[c];
      }
      finished[c] = Clock::now();
    });
  }
  const double cpu_start = process_cpu_seconds();
  ready.arrive_and_wait();
  for (auto& t : clients) t.join();
  run.cpu_s = process_cpu_seconds() - cpu_start;
  // From the first client's first request to the last client's last answer.
  run.total_s = std::chrono::duration<double>(*std::max_element(finished.begin(), finished.end()) -
                                              *std::min_element(started.begin(), started.end()))
                    .count();
  for (int c = 0; c < kClients; ++c) {
    CHECK(failures[c] == 0);
    run.latencies.insert(run.latencies.end(), per_client[c].begin(), per_client[c].end());
  }
  CHECK(ipam.snapshot().endpoints.size() == std::size_t(kClients) * n);
  auto s = Clock::now();
  run.state_bytes = fed::fabric::ipam::state_to_json(ipam.snapshot()).dump().size();
  run.serialise_s = std::chrono::duration<double>(Clock::now() - s).count();
  return run;
}

}  // namespace

TEST_CASE("B1: MapEndpointIP, 5 concurrent clients x n requests") {
  std::printf("\nB1 MapEndpointIP (IPAM only), %d clients, median of %d runs\n", kClients,
              kRepeats);
  std::printf("%6s %7s %10s %12s %10s %12s %10s %10s %18s\n", "n", "r", "t (ms)", "a=t/r (us)",
              "req/s", "CPU/req (us)", "p50 (us)", "p99 (us)", "state JSON");
  for (int n : {10, 50, 100, 150, 200, 400, 1000, 2000}) {
    std::vector<Run> runs;
    for (int k = 0; k < kRepeats; ++k) runs.push_back(run_once(n));
    std::sort(runs.begin(), runs.end(),
              [](const Run& a, const Run& b) { return a.total_s < b.total_s; });
    const Run& median = runs[kRepeats / 2];
    const int r = kClients * n;
    std::printf("%6d %7d %10.3f %12.3f %10.0f %12.3f %10.3f %10.3f %7zu kB %6.1f ms\n", n, r,
                median.total_s * 1e3, median.total_s / r * 1e6, r / median.total_s,
                median.cpu_s / r * 1e6, fed::util::percentile(median.latencies, 0.50) * 1e6,
                fed::util::percentile(median.latencies, 0.99) * 1e6, median.state_bytes / 1024,
                median.serialise_s * 1e3);
  }
  std::printf("published (thesis B1): r=500 a=0.521 s, r=1000 a=0.675 s\n");
}

// How many Kubernetes requests a leader change costs, kube-apiserver (testbed binary) talking to
// etcd directly (clientv3's round-robin over the three members) vs through the etcd proxy in
// leader mode. The same scenario each time, on a fresh cluster with 5 ms per member (requests
// take long enough to be in flight when the leader goes): a serial ConfigMap create+get
// workload; after 2 s the leader is moved with move-leader, 5 s later the new leader is
// SIGKILLed, and the workload runs on until its 800 requests are done. Every non-2xx answer is
// counted with its message. FED_FAILOVER_ROUNDS (3) repetitions per mode.
#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "agent/etcdproxy/etcd_proxy.hpp"
#include "shared/metrics/registry.hpp"
#include "tests/bench/agent/etcdproxy/apiserver_fixture.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

using namespace fed;
using namespace std::chrono_literals;

namespace {

struct Outcome {
  int requests = 0;
  int failed = 0;
  int before_kill = 0;              // failed requests sent before the SIGKILL (the move's)
  std::vector<std::string> errors;  // each tagged [move] or [kill]
};

// Waits until `leader()` names a member other than `not_this`; false after 10 s.
template <typename LeaderFn>
bool wait_for_new_leader(LeaderFn leader, std::size_t not_this) {
  for (int i = 0; i < 200; ++i) {
    const auto l = leader();
    if (l && *l != not_this) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

enum class Mode { Direct, Passthrough, Terminating };

Outcome run_scenario(Mode mode) {
  const bool through_proxy = mode != Mode::Direct;
  etcdtest::Cluster cluster(5);
  REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
  etcdtest::InClientNetns netns;
  REQUIRE(netns.ok());

  metrics::Registry registry;
  std::unique_ptr<etcdproxy::EtcdProxy> proxy;
  std::string servers = std::string(etcdtest::kMemberUrls[0]) + "," + etcdtest::kMemberUrls[1] +
                        "," + etcdtest::kMemberUrls[2];
  if (through_proxy) {
    auto po = etcdbench::proxy_options(cluster);
    po.poll_period = 200ms;
    po.drain_deadline = 3000ms;
    if (mode == Mode::Terminating) po.serving_tls = etcdbench::proxy_serving_tls(cluster);
    proxy = etcdbench::start_proxy(po, registry);
    servers = etcdbench::kProxyUrl;
  }
  REQUIRE(etcdtest::harness("apiserver " + cluster.dir() + " " + servers) == 0);

  etcd::ClientOptions ac;
  ac.endpoints.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  ac.tls = cluster.client_tls();
  auto admin = etcd::EtcdClient::create(ac).value();
  REQUIRE(admin->wait_for_leader(5s));
  // The proxy's view when there is one (the drain follows it), else the admin client's.
  const auto leader = [&]() -> std::optional<std::size_t> {
    return proxy ? proxy->view().leader : admin->view().leader;
  };

  const auto wo = etcdbench::apiserver_workload(cluster, "failover", 400);
  auto load = std::async(std::launch::async, [&] { return etcdbench::run_configmap_workload(wo); });

  std::this_thread::sleep_for(2s);
  const auto first = leader();
  REQUIRE(first);
  const std::size_t target = (*first + 1) % 3;
  REQUIRE(admin->move_leader(admin->view().members[target].id));
  CHECK(wait_for_new_leader(leader, *first));
  std::this_thread::sleep_for(5s);  // past the proxy's drain deadline
  const auto killed_at = std::chrono::steady_clock::now();
  REQUIRE(cluster.kill_member(static_cast<int>(target) + 1));
  CHECK(wait_for_new_leader(leader, target));

  auto result = load.get();
  REQUIRE(result);
  etcdtest::harness("stop-apiserver " + cluster.dir());
  if (proxy) proxy->stop();
  Outcome o{result->requests, result->failed, 0, {}};
  const double kill_s = std::chrono::duration<double>(killed_at - result->started).count();
  std::size_t nth = 0;  // errors[] holds the first failures' messages, in order
  for (std::size_t i = 0; i < result->succeeded.size(); ++i) {
    if (result->succeeded[i]) continue;
    const bool before = result->started_s[i] < kill_s;
    if (before) ++o.before_kill;
    if (nth < result->errors.size()) {
      o.errors.push_back(std::string(before ? "[move] " : "[kill] ") + result->errors[nth++]);
    }
  }
  return o;
}

}  // namespace

TEST_CASE("failed Kubernetes requests per leader move + leader kill: direct vs through the proxy") {
  spdlog::set_level(spdlog::level::warn);
  const char* env = std::getenv("FED_FAILOVER_ROUNDS");
  const int rounds = env != nullptr ? std::atoi(env) : 3;
  const char* only = std::getenv("FED_FAILOVER_MODE");  // one column only, by its name
  const std::pair<Mode, const char*> modes[] = {{Mode::Direct, "direct"},
                                                {Mode::Passthrough, "proxy, TLS passed through"},
                                                {Mode::Terminating, "proxy, TLS terminated"}};
  std::string table =
      "| round | direct (clientv3 round-robin) | through the proxy, TLS passed "
      "through | through the proxy, TLS terminated |\n|---|---|---|---|\n";
  int totals[3] = {0, 0, 0};
  for (int r = 1; r <= rounds; ++r) {
    table += "| " + std::to_string(r);
    for (std::size_t i = 0; i < 3; ++i) {
      if (only != nullptr && std::string(only) != modes[i].second) {
        table += " | -";
        continue;
      }
      const Outcome o = run_scenario(modes[i].first);
      totals[i] += o.failed;
      table += " | " + std::to_string(o.failed) + " of " + std::to_string(o.requests) + " (" +
               std::to_string(o.before_kill) + " at the move)";
      for (const auto& e : o.errors)
        MESSAGE(std::string(modes[i].second) << ", round " << r << ": " << e);
    }
    table += " |\n";
  }
  table += "| total | " + std::to_string(totals[0]) + " | " + std::to_string(totals[1]) + " | " +
           std::to_string(totals[2]) + " |\n";
  std::printf("\nFailed requests, move-leader then SIGKILL of the new leader (%d rounds)\n%s",
              rounds, table.c_str());
}

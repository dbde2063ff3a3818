// The claim behind the proxy's drain in its TLS-terminating mode: moving kube-apiserver's etcd
// connections off a deposed leader fails no Kubernetes request. kube-apiserver (testbed binary)
// talks to etcd only through the proxy, which terminates TLS and drains with an HTTP/2 GOAWAY; a
// serial ConfigMap create+get workload runs while the leader is moved twice with move-leader.
// A request cut by the proxy would fail with a transport error ("error reading from server:
// EOF", Unavailable); etcd's own answers to a leadership transfer ("leader changed", "raft
// proposal dropped") reach kube-apiserver's clients without any proxy too (measured by
// scripts/bench/etcd-apiserver-failover), so they are counted and shown, not held against it.
#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <future>
#include <string>
#include <thread>

#include "agent/etcdproxy/etcd_proxy.hpp"
#include "shared/metrics/registry.hpp"
#include "tests/bench/agent/etcdproxy/apiserver_fixture.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

using namespace fed;
using namespace std::chrono_literals;

namespace {

// A failure only a connection cut can cause.
bool transport_error(const std::string& e) {
  return e.find("Unavailable") != std::string::npos || e.find("EOF") != std::string::npos ||
         e.find("connection reset") != std::string::npos;
}

}  // namespace

TEST_CASE("kube-apiserver through the TLS-terminating proxy: two leader moves fail no request") {
  spdlog::set_level(spdlog::level::warn);
  etcdtest::Cluster cluster(5);  // 5 ms per member: requests take long enough to be cut
  REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
  etcdtest::InClientNetns netns;
  REQUIRE(netns.ok());

  metrics::Registry registry;
  auto po = etcdbench::proxy_options(cluster);
  po.poll_period = 200ms;
  po.drain_deadline = 3000ms;
  po.serving_tls = etcdbench::proxy_serving_tls(cluster);
  auto proxy = etcdbench::start_proxy(po, registry);
  REQUIRE(etcdtest::harness("apiserver " + cluster.dir() + " " + etcdbench::kProxyUrl) == 0);

  etcd::ClientOptions ac;
  ac.endpoints.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  ac.tls = cluster.client_tls();
  auto admin = etcd::EtcdClient::create(ac).value();
  REQUIRE(admin->wait_for_leader(5s));

  const auto wo = etcdbench::apiserver_workload(cluster, "failover", 600);
  auto load = std::async(std::launch::async, [&] { return etcdbench::run_configmap_workload(wo); });

  for (int move = 0; move < 2; ++move) {
    std::this_thread::sleep_for(2s);
    const std::size_t from = *proxy->view().leader;
    const std::size_t to = (from + 1) % 3;
    REQUIRE(admin->move_leader(proxy->view().members[to].id));
    for (int i = 0; i < 100 && proxy->view().leader != to; ++i) std::this_thread::sleep_for(50ms);
    REQUIRE(proxy->view().leader == to);
    std::this_thread::sleep_for(4s);  // past the drain deadline: watches moved as well
    CHECK(proxy->open_connections()[from] == 0);
    CHECK(proxy->open_connections()[to] > 0);
  }
  auto result = load.get();
  REQUIRE(result);
  MESSAGE("workload: " << result->requests << " requests in " << result->seconds << " s, "
                       << result->failed << " failed");
  int cut = 0;
  for (const auto& e : result->errors) {
    MESSAGE("  " << e);
    if (transport_error(e)) ++cut;
  }
  MESSAGE("proxy metrics:\n" << registry.render());
  CHECK(cut == 0);
  CHECK(result->requests == 1200);
  etcdtest::harness("stop-apiserver " + cluster.dir());
  proxy->stop();
}

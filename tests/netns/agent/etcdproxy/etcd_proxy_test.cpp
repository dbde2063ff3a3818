// The proxy against a real 3-member etcd cluster (mTLS) in namespaces: it follows a leader moved
// with move-leader and a leader killed with SIGKILL, and keeps serving with a member down. The
// client is the project's EtcdClient pointed at the proxy only, doing serial puts and
// linearizable reads; every failed attempt is counted.
#include "agent/etcdproxy/etcd_proxy.hpp"

#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <thread>

#include "shared/metrics/registry.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

using namespace fed;
using namespace std::chrono_literals;

namespace {

template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return pred();
}

etcdproxy::EtcdProxyOptions proxy_options(const etcdtest::Cluster& cluster,
                                          etcd::RoutingPolicy policy) {
  etcdproxy::EtcdProxyOptions o;
  o.listen_address = "127.0.0.1:0";
  o.members.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  o.policy = policy;
  o.status_tls = cluster.client_tls();
  o.poll_period = 200ms;
  o.status_timeout = 500ms;
  o.dial_timeout = 500ms;
  o.drain_deadline = 3000ms;  // the workload never pauses: the deadline moves its connection
  return o;
}

std::unique_ptr<etcd::EtcdClient> client_via(const etcdtest::Cluster& cluster, std::uint16_t port) {
  etcd::ClientOptions c;
  c.endpoints = {"https://127.0.0.1:" + std::to_string(port)};
  c.tls = cluster.client_tls();
  c.max_attempts = 1;  // the workload counts its own retries
  c.request_timeout = 3000ms;
  return std::move(etcd::EtcdClient::create(c).value());
}

std::unique_ptr<etcd::EtcdClient> admin_client(const etcdtest::Cluster& cluster) {
  etcd::ClientOptions c;
  c.endpoints.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  c.tls = cluster.client_tls();
  c.poll_period = 200ms;
  return std::move(etcd::EtcdClient::create(c).value());
}

void report(const char* phase, const etcdtest::WorkloadCounts& w) {
  MESSAGE(std::string(phase) << ": ok " << w.ok.load() << ", retried attempts " << w.retries.load()
                             << ", failed after retries " << w.failed.load());
  for (const auto& e : w.errors) MESSAGE("  attempt error: " << e);
}

}  // namespace

TEST_CASE("etcd-proxy follows move-leader and SIGKILL of the leader, and survives a member down") {
  spdlog::set_level(spdlog::level::warn);
  etcdtest::Cluster cluster(0);
  REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
  etcdtest::InClientNetns netns;
  REQUIRE(netns.ok());

  metrics::Registry registry;
  auto proxy =
      etcdproxy::EtcdProxy::create(proxy_options(cluster, etcd::RoutingPolicy::Leader), registry)
          .value();
  REQUIRE(proxy->start());
  REQUIRE(eventually([&] { return proxy->ready(); }, 5s));
  auto admin = admin_client(cluster);
  REQUIRE(admin->wait_for_leader(5s));
  auto client = client_via(cluster, proxy->port());

  etcdtest::WorkloadCounts moved;
  std::atomic<bool> stop{false};
  std::thread load([&] { etcdtest::run_workload(*client, moved, stop, 20, 100ms); });
  REQUIRE(eventually([&] { return moved.ok.load() > 50; }, 10s));

  // 1. move-leader: the proxy learns the new leader and drains the old one's connections.
  const std::size_t old_leader = *proxy->view().leader;
  const std::size_t target = (old_leader + 1) % 3;
  const std::uint64_t target_id = proxy->view().members[target].id;
  REQUIRE(admin->move_leader(target_id));
  CHECK(eventually([&] { return proxy->view().leader == target; }, 3s));
  CHECK(eventually([&] { return proxy->open_connections()[old_leader] == 0; }, 5s));
  const auto before = moved.ok.load();
  CHECK(eventually([&] { return moved.ok.load() > before + 50; }, 10s));
  CHECK(proxy->open_connections()[target] >= 1);
  stop = true;
  load.join();
  report("move-leader", moved);
  CHECK(moved.failed.load() == 0);

  // 2. SIGKILL the leader: connections to it break, the new leader is learned, no op is lost.
  etcdtest::WorkloadCounts killed;
  stop = false;
  load = std::thread([&] { etcdtest::run_workload(*client, killed, stop, 40, 100ms); });
  REQUIRE(eventually([&] { return killed.ok.load() > 50; }, 10s));
  const std::size_t victim = *proxy->view().leader;
  const auto kill_time = std::chrono::steady_clock::now();
  REQUIRE(cluster.kill_member(static_cast<int>(victim) + 1));
  CHECK(eventually(
      [&] {
        const auto l = proxy->view().leader;
        return l && *l != victim;
      },
      10s));
  MESSAGE("new leader known to the proxy " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  std::chrono::steady_clock::now() - kill_time)
                                                  .count()
                                           << " ms after SIGKILL");
  const auto before_kill = killed.ok.load();
  CHECK(eventually([&] { return killed.ok.load() > before_kill + 50; }, 15s));

  // 3. With that member still down, the proxy keeps serving through the two others.
  const auto during_down = killed.ok.load();
  CHECK(eventually([&] { return killed.ok.load() > during_down + 100; }, 15s));
  stop = true;
  load.join();
  report("SIGKILL leader, then one member down", killed);
  CHECK(killed.failed.load() == 0);
  CHECK(proxy->open_connections()[victim] == 0);

  // New connections under round-robin skip the dead member too.
  metrics::Registry rr_registry;
  auto rr = etcdproxy::EtcdProxy::create(proxy_options(cluster, etcd::RoutingPolicy::RoundRobin),
                                         rr_registry)
                .value();
  REQUIRE(rr->start());
  REQUIRE(eventually([&] { return rr->ready(); }, 5s));
  REQUIRE(eventually([&] { return !rr->view().members[victim].healthy; }, 5s));
  int rr_ok = 0;
  for (int i = 0; i < 6; ++i) {
    auto c = client_via(cluster, rr->port());  // a new connection each time
    if (c->put({"/fedetcd/rr" + std::to_string(i), "x", 0, false})) ++rr_ok;
  }
  CHECK(rr_ok == 6);
  const std::string text = rr_registry.render();
  MESSAGE("round-robin proxy metrics:\n" << text);
  rr->stop();

  CHECK(cluster.restart_member(static_cast<int>(victim) + 1));
  CHECK(eventually([&] { return proxy->view().members[victim].healthy; }, 15s));
  proxy->stop();
  MESSAGE("leader-policy proxy metrics:\n" << registry.render());
}

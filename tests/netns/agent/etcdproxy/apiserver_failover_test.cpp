// The claim behind the proxy's drain: kube-apiserver's etcd client (clientv3, gRPC) reconnects
// through the proxy and retries, so moving or killing the leader under a running API workload
// costs no failed Kubernetes request. kube-apiserver (testbed binary) talks to etcd only through
// the proxy; a serial ConfigMap create+get workload runs while the leader is moved with
// move-leader and then SIGKILLed; every non-2xx answer is counted.
#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <future>
#include <thread>

#include "configmap_workload.hpp"
#include "etcd_harness.hpp"
#include "etcdproxy/etcd_proxy.hpp"
#include "metrics/registry.hpp"

using namespace fed;
using namespace std::chrono_literals;

TEST_CASE("kube-apiserver through the proxy: move-leader and SIGKILL of the leader mid-workload") {
  spdlog::set_level(spdlog::level::warn);
  etcdtest::Cluster cluster(5);  // 5 ms per member: requests take long enough to be cut
  REQUIRE_MESSAGE(cluster.up(), "harness up failed; logs in " << cluster.dir());
  etcdtest::InClientNetns netns;
  REQUIRE(netns.ok());

  metrics::Registry registry;
  etcdproxy::EtcdProxyOptions po;
  po.listen_address = "127.0.0.1:23790";
  po.members.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  po.status_tls = cluster.client_tls();
  po.poll_period = 200ms;
  po.drain_deadline = 3000ms;
  auto proxy = etcdproxy::EtcdProxy::create(po, registry).value();
  REQUIRE(proxy->start());
  for (int i = 0; i < 100 && !proxy->ready(); ++i) std::this_thread::sleep_for(50ms);
  REQUIRE(proxy->ready());
  REQUIRE(etcdtest::harness("apiserver " + cluster.dir() + " https://127.0.0.1:23790") == 0);

  etcd::ClientOptions ac;
  ac.endpoints.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  ac.tls = cluster.client_tls();
  auto admin = etcd::EtcdClient::create(ac).value();
  REQUIRE(admin->wait_for_leader(5s));

  etcdbench::WorkloadOptions wo;
  wo.server = "https://10.199.0.10:6443";
  wo.ca_file = cluster.dir() + "/pki/ca.crt";
  wo.cert_file = cluster.dir() + "/pki/admin.crt";
  wo.key_file = cluster.dir() + "/pki/admin.key";
  wo.prefix = "failover";
  wo.count = 400;
  auto load = std::async(std::launch::async, [&] { return etcdbench::run_configmap_workload(wo); });

  std::this_thread::sleep_for(2s);
  const std::size_t first = *proxy->view().leader;
  const std::size_t target = (first + 1) % 3;
  REQUIRE(admin->move_leader(proxy->view().members[target].id));
  for (int i = 0; i < 100 && proxy->view().leader != target; ++i) std::this_thread::sleep_for(50ms);
  CHECK(proxy->view().leader == target);
  std::this_thread::sleep_for(5s);  // past the drain deadline
  CHECK(proxy->open_connections()[first] == 0);

  REQUIRE(cluster.kill_member(static_cast<int>(target) + 1));
  for (int i = 0; i < 200; ++i) {
    const auto l = proxy->view().leader;
    if (l && *l != target) break;
    std::this_thread::sleep_for(50ms);
  }
  auto result = load.get();
  REQUIRE(result);
  MESSAGE("workload: " << result->requests << " requests in " << result->seconds << " s, "
                       << result->failed << " failed");
  for (const auto& e : result->errors) MESSAGE("  " << e);
  MESSAGE("proxy metrics:\n" << registry.render());
  CHECK(result->failed == 0);
  etcdtest::harness("stop-apiserver " + cluster.dir());
  proxy->stop();
}

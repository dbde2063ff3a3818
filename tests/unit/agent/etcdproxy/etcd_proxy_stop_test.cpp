// EtcdProxy's accessors while stop() runs on another thread, as in fed-agent: the health server
// asks ready() on its own threads while the role stops. No etcd is needed: the one member is a
// closed port, so the pollers keep failing. Meant for build/tsan, where a reader of a client
// that stop() freed was reported (unit_agent_process, 2026-11-25).
#include "agent/etcdproxy/etcd_proxy.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "shared/metrics/registry.hpp"

using namespace fed;
using namespace std::chrono_literals;

TEST_CASE("ready(), view() and status() are safe while and after stop() runs") {
  metrics::Registry registry;
  etcdproxy::EtcdProxyOptions o;
  o.listen_address = "127.0.0.1:0";
  o.members = {"http://127.0.0.1:1"};  // nothing listens on port 1
  o.poll_period = 10ms;
  o.status_timeout = 100ms;
  o.dial_timeout = 100ms;
  o.status_socket = "";
  auto proxy = etcdproxy::EtcdProxy::create(o, registry).value();
  CHECK_FALSE(proxy->ready());  // before start()
  REQUIRE(proxy->start());

  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!done.load()) {
      (void)proxy->ready();
      (void)proxy->view();
      (void)proxy->status();
      ++reads;
    }
  });
  while (reads.load() < 10) std::this_thread::sleep_for(1ms);
  proxy->stop();
  CHECK_FALSE(proxy->ready());
  CHECK(proxy->view().members.size() == 1);  // still readable after stop()
  done = true;
  reader.join();
  proxy->stop();  // idempotent
}

#pragma once
// What the election tests share: the etcd client one manager process uses (every member of the
// harness, the election's tight timeouts: a request must end before the renew deadline), and
// a poll for a condition.

#include <chrono>
#include <iterator>
#include <memory>
#include <thread>

#include "shared/etcd/client.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

namespace fed::ha {

// The election key of the HA suites (a test prefix, not the manager's).
inline constexpr const char* kKey = "/kubectl-fed/test/leader";

inline std::unique_ptr<etcd::EtcdClient> client_for(const etcdtest::Cluster& cluster) {
  using namespace std::chrono_literals;
  etcd::ClientOptions o;
  o.endpoints.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  o.tls = cluster.client_tls();
  o.poll_period = 100ms;
  o.status_timeout = 200ms;
  o.request_timeout = 300ms;  // below the renew deadline
  o.dial_timeout = 200ms;
  return std::move(etcd::EtcdClient::create(o).value());
}

// Whether `pred` holds within `timeout`, looking every 2 ms.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout) {
  using namespace std::chrono_literals;
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return pred();
}

}  // namespace fed::ha

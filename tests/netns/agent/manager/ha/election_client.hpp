#pragma once
// The etcd client one manager process of these tests uses: every member of the harness, and
// the election's tight timeouts (a request must end before the renew deadline).

#include <chrono>
#include <iterator>
#include <memory>

#include "shared/etcd/client.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

namespace fed::ha {

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

}  // namespace fed::ha

#pragma once
// What the kube-apiserver benches and tests on the etcd harness share: the etcd proxy set up for
// the harness's cluster, started and routing, and the ConfigMap workload aimed at the cluster's
// kube-apiserver with its admin certificate. Header-only: each suite compiles it with doctest.

#include <doctest/doctest.h>

#include <chrono>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "agent/etcdproxy/etcd_proxy.hpp"
#include "shared/metrics/registry.hpp"
#include "tests/bench/agent/etcdproxy/configmap_workload.hpp"
#include "tests/netns/agent/etcdproxy/etcd_harness.hpp"

namespace fed::etcdbench {

// Where the proxy listens in the client namespace; kube-apiserver's --etcd-servers through it.
inline constexpr const char* kProxyAddress = "127.0.0.1:23790";
inline constexpr const char* kProxyUrl = "https://127.0.0.1:23790";

// The proxy's options for `cluster`: every member, the cluster's client certificate for status
// polls (and for the member sessions when it terminates TLS).
inline etcdproxy::EtcdProxyOptions proxy_options(const etcdtest::Cluster& cluster) {
  etcdproxy::EtcdProxyOptions po;
  po.listen_address = kProxyAddress;
  po.members.assign(std::begin(etcdtest::kMemberUrls), std::end(etcdtest::kMemberUrls));
  po.status_tls = cluster.client_tls();
  return po;
}

// The TLS-terminating mode: the proxy serves the members' certificate (it names 127.0.0.1) and
// requires client certificates of the cluster's CA.
inline etcdproxy::ServingTls proxy_serving_tls(const etcdtest::Cluster& cluster) {
  return {cluster.dir() + "/pki/server.crt", cluster.dir() + "/pki/server.key",
          cluster.dir() + "/pki/ca.crt"};
}

// Creates and starts the proxy, and waits until it routes as its policy wants.
inline std::unique_ptr<etcdproxy::EtcdProxy> start_proxy(const etcdproxy::EtcdProxyOptions& po,
                                                         metrics::Registry& registry) {
  auto proxy = etcdproxy::EtcdProxy::create(po, registry);
  REQUIRE_MESSAGE(proxy, proxy.error().message());
  REQUIRE((*proxy)->start());
  for (int i = 0; i < 100 && !(*proxy)->ready(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE((*proxy)->ready());
  return std::move(*proxy);
}

// The workload against the cluster's kube-apiserver (harness.sh apiserver), as its admin.
inline WorkloadOptions apiserver_workload(const etcdtest::Cluster& cluster, std::string prefix,
                                          int count) {
  WorkloadOptions o;
  o.server = "https://10.199.0.10:6443";
  o.ca_file = cluster.dir() + "/pki/ca.crt";
  o.cert_file = cluster.dir() + "/pki/admin.crt";
  o.key_file = cluster.dir() + "/pki/admin.key";
  o.prefix = std::move(prefix);
  o.count = count;
  return o;
}

}  // namespace fed::etcdbench

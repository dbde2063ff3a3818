#pragma once
// What the client, watch, informer and controller tests share beside their LoopbackServer: a
// DynamicClient for it and a bounded wait for something the client's threads do.

#include <doctest/doctest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "shared/kube/dynamic_client.hpp"
#include "tests/unit/shared/kube/loopback_server.hpp"

namespace fed::kube::testing {

// A client of `server` named `cluster_name` (as errors quote it): no client-side rate limit,
// retries after 1-5 ms.
inline std::shared_ptr<DynamicClient> loopback_client(const LoopbackServer& server,
                                                      const std::string& cluster_name,
                                                      const std::string& default_namespace = "") {
  RestConfig c;
  c.server = server.url();
  c.cluster_name = cluster_name;
  c.default_namespace = default_namespace;
  c.qps = 0;
  RestClientOptions o;
  o.backoff = BackoffPolicy{std::chrono::milliseconds(1), std::chrono::milliseconds(5), 2.0};
  auto client = DynamicClient::create(c, o);
  REQUIRE(client);
  return *client;
}

// Polls `pred` every 5 ms until it holds or `timeout` passes; returns its last value.
template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

}  // namespace fed::kube::testing

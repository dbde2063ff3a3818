#pragma once
// `fed-agent etcd-proxy`: the leader-aware proxy as a role — health server, /metrics with the
// proxy's per-member counters, ready once new connections can be routed as the policy wants.

#include <atomic>
#include <memory>

#include "agent/etcdproxy/etcd_proxy.hpp"
#include "agent/roles/role_runner.hpp"

namespace fed::etcdproxy {

class EtcdProxyRunner final : public agent::RoleRunner {
 public:
  explicit EtcdProxyRunner(EtcdProxyOptions options) : options_(std::move(options)) {}

  agent::Role role() const override { return agent::Role::EtcdProxy; }
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override;
  void stop() override;

 private:
  EtcdProxyOptions options_;
  std::unique_ptr<EtcdProxy> proxy_;
  std::atomic<bool> started_{false};
};

}  // namespace fed::etcdproxy

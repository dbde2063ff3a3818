#pragma once
// /metrics of every long-running role (docs/SECURITY.md, "Listening sockets"). Off the health
// port, which kubelet probes reach with no credentials: on --metrics-bind-address, HTTPS with
// a self-signed certificate (as kube-scheduler's secure port serves by default) and delegated
// authentication and authorization (kube/delegated_auth.hpp), so that only a caller whose
// token the API server vouches for and whose user may `get` the non-resource URL /metrics
// reads it. A loopback address is served in plain HTTP without those checks: the etcd proxy's
// default, since it runs where the API server may depend on it and cannot ask it anything.

#include <filesystem>
#include <memory>
#include <string>

#include "agent/roles/options.hpp"
#include "agent/roles/role.hpp"
#include "shared/http/server.hpp"
#include "shared/kube/delegated_auth.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/result/result.hpp"

namespace fed::agent {

// The metrics address of a role when --metrics-bind-address is not given.
inline constexpr const char* kDefaultMetricsBindAddress = "0.0.0.0:9441";
inline constexpr const char* kDefaultEtcdProxyMetricsBindAddress = "127.0.0.1:9442";
std::string metrics_bind_address(Role role, const AgentOptions& options);

class MetricsServer final {
 public:
  // Starts serving `registry` for `role`. Unavailable when the port is taken; the API client's
  // errors when the address is not loopback and the role's cluster cannot be configured.
  static Result<std::unique_ptr<MetricsServer>> start(Role role, const AgentOptions& options,
                                                      const metrics::Registry& registry);
  ~MetricsServer();  // stops, and removes the certificate directory
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  const std::string& local_address() const { return server_->local_address(); }
  bool authenticated() const { return auth_ != nullptr; }

 private:
  MetricsServer() = default;

  std::filesystem::path cert_dir_;  // empty when plain HTTP
  std::unique_ptr<kube::DelegatedAuth> auth_;
  std::unique_ptr<http::Server> server_;
};

}  // namespace fed::agent

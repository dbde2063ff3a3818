#pragma once
// `fed-agent etcd-proxy`: a node-local, leader-aware TCP proxy in front of an etcd cluster.
// kube-apiserver's --etcd-servers points at it; every new connection goes to the member the
// policy picks (the leader, learned by polling Maintenance.Status of every member and from raft
// terms, or round-robin), TLS passing through so mTLS to etcd keeps working. When leadership
// moves, connections to the old leader are drained (closed at a quiet moment) so the client
// reconnects and lands on the new leader; a dead member's connections end by themselves and new
// ones skip it.
//
// With leader+classifier, a LeaderHealthMonitor in the same process moves leadership off a
// leader the classifier finds delayed (leader_health_monitor.hpp).
//
// With a status socket (options.status_socket), `kubectl fed etcd status` reads status() over
// a local unix socket (status_socket.hpp); the socket serves that document and accepts no input.
//
// The etcd-proxy role calls run_etcd_proxy() (or owns an EtcdProxy for readiness):
//   EtcdProxy::create(options, registry) -> start() -> ready()/view()/status() -> stop().

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>

#include "agent/etcdproxy/options.hpp"
#include "agent/etcdproxy/proxied_connection.hpp"
#include "agent/etcdproxy/proxy_metrics.hpp"
#include "agent/etcdproxy/socket_util.hpp"
#include "agent/etcdproxy/tls_termination.hpp"
#include "shared/etcd/client.hpp"
#include "shared/etcd/proxy_status.hpp"
#include "shared/metrics/registry.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

class LeaderHealthMonitor;
class StatusSocket;
struct LeaderHealth;

class EtcdProxy final {
 public:
  // Validates the options and registers the metrics; binds nothing yet.
  static Result<std::unique_ptr<EtcdProxy>> create(const EtcdProxyOptions& options,
                                                   metrics::Registry& registry);
  ~EtcdProxy();  // stop()
  EtcdProxy(const EtcdProxy&) = delete;
  EtcdProxy& operator=(const EtcdProxy&) = delete;

  // Binds the listen address (and the status socket, if any), starts the status pollers and
  // the accept thread. Call once.
  Status start();
  // Stops accepting, closes every forwarded connection and joins all threads. Idempotent. The
  // accessors below stay safe during and after it: the role's health server calls ready() from
  // its own threads while the role stops.
  void stop();

  // True once new connections can be routed as the policy wants (the leader is known, or for
  // round-robin a member answered); false before start() returned and from stop() on.
  // Thread-safe.
  bool ready() const;
  // The bound port (useful with port 0).
  std::uint16_t port() const { return port_; }
  // The leader tracking state, for status output.
  etcd::ClusterView view() const;
  // Forwarded connections currently open, per member.
  std::vector<std::size_t> open_connections() const;
  // The classifier's last period (policy leader+classifier only).
  std::optional<LeaderHealth> leader_health() const;
  // Everything `kubectl fed etcd status` shows: members, leader, term, policy, the classifier's
  // last period, the last leader move and per-member counters (etcd_proxy_status.cpp).
  etcd::ProxyStatus status() const;

 private:
  EtcdProxy(EtcdProxyOptions options, metrics::Registry& registry);
  bool dial(Fd& upstream, std::size_t& member);
  void on_leader_change(std::optional<std::size_t> leader);
  void accept_loop(std::stop_token stop);
  void reap();

  const EtcdProxyOptions options_;
  std::vector<HostPort> targets_;
  ProxyMetrics metrics_;
  metrics::Registry& registry_;
  std::unique_ptr<etcd::EtcdClient> client_;
  std::unique_ptr<LeaderHealthMonitor> monitor_;    // leader+classifier only
  std::optional<TerminationContexts> termination_;  // TLS-terminating mode only
  Fd listener_;
  std::uint16_t port_ = 0;
  // Set at the end of start(), cleared first thing in stop(). ready() reads client_ only when it
  // is set; the store/load pair also publishes start()'s writes to other threads.
  std::atomic<bool> serving_{false};
  mutable std::mutex mu_;  // connections_, rr_next_, last_leader_, last_move_
  std::list<std::unique_ptr<ProxiedConnection>> connections_;
  std::size_t rr_next_ = 0;
  std::optional<std::size_t> last_leader_;
  std::optional<etcd::ProxyLeaderMove> last_move_;
  std::unique_ptr<StatusSocket> status_socket_;
  // Member names by id for status(), from MemberList on demand (etcd_proxy_status.cpp).
  std::map<std::uint64_t, std::string> member_names(const etcd::ClusterView& view) const;
  mutable std::mutex names_mu_;
  mutable std::map<std::uint64_t, std::string> names_;
  mutable std::chrono::steady_clock::time_point names_tried_{};
  std::jthread acceptor_;
};

// Runs the proxy until `stop` is requested; errors only when it could not start.
Status run_etcd_proxy(const EtcdProxyOptions& options, metrics::Registry& registry,
                      std::stop_token stop);

}  // namespace fed::etcdproxy

#pragma once
// Settings of `fed-agent etcd-proxy`: one plain struct filled once by a flag parser.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "agent/etcdproxy/tls_termination.hpp"
#include "shared/etcd/gateway_transport.hpp"
#include "shared/etcd/leader_tracker.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

struct EtcdProxyOptions {
  // Where kube-apiserver's --etcd-servers points (host:port). Loopback: the proxy runs beside it.
  std::string listen_address = "127.0.0.1:2379";
  // Every member's client URL ("https://10.0.0.1:2379"): TCP forwarding targets (TLS passes
  // through untouched) and where the proxy polls Maintenance.Status.
  std::vector<std::string> members;
  etcd::RoutingPolicy policy = etcd::RoutingPolicy::Leader;
  // The proxy's own client certificate for status polls (etcd --client-cert-auth).
  etcd::TlsFiles status_tls;
  std::chrono::milliseconds poll_period{500};
  std::chrono::milliseconds status_timeout{800};
  std::chrono::milliseconds dial_timeout{1000};
  // Moving off a deposed leader: a connection is closed once it has been quiet for drain_quiet
  // after the member's last answer (so no request is cut), and at drain_deadline in any case.
  std::chrono::milliseconds drain_quiet{5};
  std::chrono::milliseconds drain_deadline{10'000};
  // Set: the proxy terminates the clients' TLS with this certificate (kube-apiserver's
  // --etcd-cafile must trust it) and opens its own mTLS session to the member with status_tls's
  // client certificate. It then sees HTTP/2 and drains a deposed leader's connection with a
  // GOAWAY, failing no request (terminated_connection.hpp); passing TLS through can only close
  // the connection at a quiet moment. Unset: TLS passes through.
  ServingTls serving_tls;
  // Terminating mode: a stream open this long counts as long-lived (a watch) when draining.
  std::chrono::milliseconds long_lived_after{2000};
  // Unix socket serving the status document to `kubectl fed etcd status` (status_socket.hpp);
  // empty: none. The flag's default is etcd::kDefaultProxyStatusSocket.
  std::string status_socket;

  // leader+classifier: routing as for leader, plus the leader-health classifier, which scrapes
  // the leader every classify_period and moves leadership off a leader it finds delayed
  // (agent/etcdproxy/leader_health_monitor.hpp). Decision and routing share this process: there
  // is no control channel to open.
  bool classifier = false;
  std::string classifier_model;  // XGBoost model file (fed-etcd-classifier train)
  std::chrono::milliseconds classify_period{1000};
  int move_hold_periods = 3;       // classes 1/3 this many periods in a row => MoveLeader
  int move_cooldown_periods = 30;  // periods without another move after one
};

// A --policy value: how connections are routed, and whether the classifier runs.
struct PolicyChoice {
  etcd::RoutingPolicy routing = etcd::RoutingPolicy::Leader;
  bool classifier = false;
};

// "round-robin" | "leader" | "leader+classifier".
Result<PolicyChoice> parse_proxy_policy(std::string_view text);

// Checks what a parser cannot: at least one member, URL schemes, positive periods, a model
// file for the classifier.
Status validate(const EtcdProxyOptions& options);

}  // namespace fed::etcdproxy

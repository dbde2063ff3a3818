#pragma once
// One client connection in the proxy's TLS-terminating mode: the proxy ends kube-apiserver's TLS
// session, opens its own to the member, and copies HTTP/2 frames between the two, untouched
// except when it drains. Passing TLS through (forwarded_connection.hpp) can only close a
// connection, which fails any request in flight on it; here drain() sends the client a GOAWAY
// (h2_drain.hpp), so gRPC moves new calls to a new connection (the new leader) by itself, the
// calls in flight finish on this one, and the connection is closed once only long-lived streams
// (watches, which clientv3 resumes on its own) are left — or at the deadline.

#include <optional>
#include <string>
#include <vector>

#include "agent/etcdproxy/h2_drain.hpp"
#include "agent/etcdproxy/proxied_connection.hpp"
#include "agent/etcdproxy/proxy_metrics.hpp"
#include "agent/etcdproxy/socket_util.hpp"
#include "agent/etcdproxy/tls_termination.hpp"

namespace fed::etcdproxy {

struct TerminationSettings {
  const TerminationContexts* contexts = nullptr;   // outlive the connection
  const std::vector<HostPort>* members = nullptr;  // by member index: the IP to verify
  std::chrono::milliseconds handshake_timeout{5000};
  // A stream open this long is taken for a long-lived one (a watch) when draining.
  std::chrono::milliseconds long_lived_after{2000};
};

class TerminatedConnection final : public ProxiedConnection {
 public:
  TerminatedConnection(Fd client, Dialer dial, ProxyMetrics& metrics, TerminationSettings settings);
  ~TerminatedConnection() override;  // closes and joins

 private:
  void run(Dialer dial);
  // Dials the member the proxy picks and opens the TLS session to it; none after a few tries.
  std::optional<TlsSession> connect_member(const Dialer& dial, std::size_t& member);
  void pump(TlsSession& client, TlsSession& member);
  // Moves whole frames from `in` to `out` through the stream state; false when the client does
  // not speak HTTP/2.
  bool relay_from_client(std::string& in, std::string& out);
  void relay_from_member(std::string& in, std::string& out);

  ProxyMetrics& metrics_;
  const TerminationSettings settings_;
  // Pump-thread state.
  H2FrameSplitter from_client_{true};
  H2FrameSplitter from_member_{false};
  H2DrainState streams_;
};

}  // namespace fed::etcdproxy

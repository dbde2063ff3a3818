#pragma once
// One client connection spliced to one etcd member on its own thread. Bytes are copied both ways
// untouched (TLS and HTTP/2 pass through). drain() asks the connection to close at a safe moment
// because its member stopped leading: once the member's answer was delivered up to a TLS record
// boundary and neither side has sent anything for `quiet` (a client with gaps between requests
// then has nothing outstanding), or at `deadline` regardless. Closing at once after an answer is
// not safe: gRPC and HTTP/2 servers write the trailers / END_STREAM as a separate record, and a
// busy client sends its next request within microseconds; TLS passes through, so a session cannot
// be moved to another member, only closed. The client (clientv3 in
// kube-apiserver) then reconnects through the proxy and lands on the new leader.

#include "agent/etcdproxy/proxied_connection.hpp"
#include "agent/etcdproxy/proxy_metrics.hpp"
#include "agent/etcdproxy/tls_record_tracker.hpp"
#include "shared/raii/fd.hpp"

namespace fed::etcdproxy {

class ForwardedConnection final : public ProxiedConnection {
 public:
  ForwardedConnection(Fd client, Dialer dial, ProxyMetrics& metrics);
  ~ForwardedConnection() override;  // closes and joins

 private:
  void run(Dialer dial);
  void pump();
  bool drain_due(const DrainRequest& drain, Clock::time_point now) const;

  ProxyMetrics& metrics_;
  // Pump-thread state.
  Clock::time_point last_activity_{};
  bool member_spoke_last_ = true;  // the last bytes moved were the member's answer
  TlsRecordTracker from_member_;
};

}  // namespace fed::etcdproxy

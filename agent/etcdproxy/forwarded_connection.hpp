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

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

#include "etcdproxy/proxy_metrics.hpp"
#include "etcdproxy/tls_record_tracker.hpp"
#include "raii/fd.hpp"

namespace fed::etcdproxy {

class ForwardedConnection final {
 public:
  using Clock = std::chrono::steady_clock;
  // Chooses and dials the member for this connection (runs on the connection's thread so a slow
  // member never blocks the accept loop). Returns the member index, or none to close the client.
  using Dialer = std::function<bool(Fd& upstream, std::size_t& member)>;

  ForwardedConnection(Fd client, Dialer dial, ProxyMetrics& metrics);
  ~ForwardedConnection();  // closes and joins
  ForwardedConnection(const ForwardedConnection&) = delete;
  ForwardedConnection& operator=(const ForwardedConnection&) = delete;

  // Thread-safe. Has no effect before the member is known or after the connection ended.
  void drain(Clock::duration quiet, Clock::time_point deadline);
  // The member this connection goes to; SIZE_MAX while dialing.
  std::size_t member() const { return member_.load(); }
  bool done() const { return done_.load(); }

 private:
  void run(Dialer dial);
  void pump();
  bool drain_due(Clock::time_point now) const;

  Fd client_;
  Fd upstream_;
  Fd wake_;  // eventfd: drain() and the destructor wake the pump
  ProxyMetrics& metrics_;
  std::atomic<int> upstream_fd_{-1};  // for shutdown() from the destructor
  std::atomic<std::size_t> member_{static_cast<std::size_t>(-1)};
  std::atomic<bool> done_{false};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;  // guards the drain settings
  bool draining_ = false;
  Clock::duration quiet_{};
  Clock::time_point deadline_{};
  // Pump-thread state.
  Clock::time_point last_activity_{};
  bool member_spoke_last_ = true;  // the last bytes moved were the member's answer
  TlsRecordTracker from_member_;
  std::thread thread_;
};

}  // namespace fed::etcdproxy

#pragma once
// One client connection of the etcd proxy, spliced to one member on its own thread, in either
// mode: TLS passed through untouched (forwarded_connection.hpp) or terminated, with HTTP/2
// visible to the proxy (terminated_connection.hpp). This base holds what both share: the
// sockets, the thread and its wake-up, and the drain request the proxy makes when the member
// stops leading.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "shared/raii/fd.hpp"

namespace fed::etcdproxy {

class ProxiedConnection {
 public:
  using Clock = std::chrono::steady_clock;
  // Chooses and dials the member for this connection (runs on the connection's thread so a slow
  // member never blocks the accept loop). Returns the member index, or none to close the client.
  using Dialer = std::function<bool(Fd& upstream, std::size_t& member)>;

  virtual ~ProxiedConnection() = default;
  ProxiedConnection(const ProxiedConnection&) = delete;
  ProxiedConnection& operator=(const ProxiedConnection&) = delete;

  // Asks the connection to leave its member, which stopped leading, at a moment that fails no
  // request; at `deadline` regardless. Thread-safe; the first request counts.
  void drain(Clock::duration quiet, Clock::time_point deadline);
  // The member this connection goes to; SIZE_MAX while dialing.
  std::size_t member() const { return member_.load(); }
  bool done() const { return done_.load(); }

 protected:
  explicit ProxiedConnection(Fd client);
  // For the derived destructor, first thing: wakes the thread, unblocks its socket calls and
  // joins it.
  void stop_thread();

  struct DrainRequest {
    bool requested = false;
    Clock::duration quiet{};
    Clock::time_point deadline{};
  };
  DrainRequest drain_request() const;

  // Which side has something to read after wait().
  struct Readable {
    bool client = false;
    bool member = false;
  };
  // Waits up to `timeout_ms` (-1: no limit) for either socket or a wake-up; nullopt when the
  // connection must end (stopping, or poll failed).
  std::optional<Readable> wait(int timeout_ms);

  Fd client_;
  Fd upstream_;
  Fd wake_;                           // eventfd: drain() and stop_thread() wake the pump
  std::atomic<int> upstream_fd_{-1};  // for shutdown() from stop_thread()
  std::atomic<std::size_t> member_{static_cast<std::size_t>(-1)};
  std::atomic<bool> done_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;

 private:
  void wake();
  mutable std::mutex mu_;  // drain_
  DrainRequest drain_;
};

}  // namespace fed::etcdproxy

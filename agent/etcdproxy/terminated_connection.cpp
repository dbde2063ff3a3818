#include "agent/etcdproxy/terminated_connection.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

namespace fed::etcdproxy {

TerminatedConnection::TerminatedConnection(Fd client, Dialer dial, ProxyMetrics& metrics,
                                           TerminationSettings settings)
    : ProxiedConnection(std::move(client)), metrics_(metrics), settings_(settings) {
  thread_ = std::thread([this, d = std::move(dial)]() mutable { run(std::move(d)); });
}

TerminatedConnection::~TerminatedConnection() {
  stop_thread();
}

std::optional<TlsSession> TerminatedConnection::connect_member(const Dialer& dial,
                                                               std::size_t& member) {
  // A member that accepts TCP but not TLS (etcd just died behind its listener, or a delay proxy
  // in front of it) is tried again after the status pollers had time to learn it: the client
  // is only answered once a member session stands, so it never gets a connection that ends
  // before its first frame.
  constexpr int kAttempts = 8;
  for (int attempt = 0; attempt < kAttempts && !stopping_.load(); ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    upstream_fd_.store(-1);
    upstream_.reset();
    if (!dial(upstream_, member)) continue;
    upstream_fd_.store(upstream_.get());
    auto session =
        TlsSession::connect(settings_.contexts->upstream.get(), upstream_.get(),
                            (*settings_.members)[member].host, settings_.handshake_timeout);
    if (session) return std::move(*session);
    spdlog::warn("etcd-proxy: {}", session.error().message());
    metrics_.member(member).dial_failures->inc();
  }
  return std::nullopt;
}

void TerminatedConnection::run(Dialer dial) {
  // OpenSSL writes with write(2): a peer gone must be an error here, not SIGPIPE for the process.
  // SIGPIPE is thread-directed, so blocking it in this thread is enough.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  std::size_t member = 0;
  auto upstream = connect_member(dial, member);
  if (upstream) {
    auto client = TlsSession::accept(settings_.contexts->server.get(), client_.get(),
                                     settings_.handshake_timeout);
    if (!client) {
      spdlog::warn("etcd-proxy: {}", client.error().message());
    } else {
      member_.store(member);
      auto& c = metrics_.member(member);
      c.connections->inc();
      c.active->inc();
      pump(*client, *upstream);
      c.active->dec();
      client->close_notify();
    }
    upstream->close_notify();
  }
  done_.store(true);
}

bool TerminatedConnection::relay_from_client(std::string& in, std::string& out) {
  from_client_.feed(in);
  in.clear();
  const auto now = Clock::now();
  while (auto unit = from_client_.next()) {
    if (streams_.from_client(*unit, now)) out += unit->bytes;
  }
  return !from_client_.failed();
}

void TerminatedConnection::relay_from_member(std::string& in, std::string& out) {
  from_member_.feed(in);
  in.clear();
  while (auto unit = from_member_.next()) {
    streams_.from_member(*unit);
    out += unit->bytes;
  }
}

void TerminatedConnection::pump(TlsSession& client, TlsSession& member) {
  auto& counters = metrics_.member(member_.load());
  std::string in, out;
  Clock::time_point goaway_sent{};
  for (;;) {
    int timeout_ms = -1;
    const DrainRequest drain = drain_request();
    if (drain.requested) {
      const auto now = Clock::now();
      if (!streams_.draining()) {
        // Between whole frames (only whole frames are ever written): a GOAWAY from "the server".
        if (!client.write_all(streams_.begin_drain())) return;
        goaway_sent = now;
      }
      const bool settled = now - goaway_sent >= drain.quiet &&
                           streams_.only_long_lived(now, settings_.long_lived_after);
      if (settled || now >= drain.deadline) {
        counters.drained->inc();
        return;
      }
      timeout_ms = 10;  // look again soon: streams end without waking anyone
    }
    const auto ready = wait(timeout_ms);
    if (!ready) return;
    if (ready->client) {
      if (client.read_available(in) == TlsSession::Io::Closed) return;
      if (!in.empty()) {
        if (!relay_from_client(in, out)) {
          spdlog::warn("etcd-proxy: the client does not speak HTTP/2; closing");
          return;
        }
        if (!out.empty()) {
          if (!member.write_all(out)) return;
          counters.bytes_to_member->inc(static_cast<double>(out.size()));
          out.clear();
        }
      }
    }
    if (ready->member) {
      if (member.read_available(in) == TlsSession::Io::Closed) return;
      if (!in.empty()) {
        relay_from_member(in, out);
        if (!out.empty()) {
          if (!client.write_all(out)) return;
          counters.bytes_from_member->inc(static_cast<double>(out.size()));
          out.clear();
        }
      }
    }
  }
}

}  // namespace fed::etcdproxy

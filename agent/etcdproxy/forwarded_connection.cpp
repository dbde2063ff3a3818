#include "agent/etcdproxy/forwarded_connection.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>

namespace fed::etcdproxy {
namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;

// Writes all of `data`; false when the peer is gone.
bool write_all(int fd, const char* data, std::size_t len) {
  while (len > 0) {
    const ssize_t n = ::send(fd, data, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    len -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

ForwardedConnection::ForwardedConnection(Fd client, Dialer dial, ProxyMetrics& metrics)
    : ProxiedConnection(std::move(client)), metrics_(metrics) {
  thread_ = std::thread([this, d = std::move(dial)]() mutable { run(std::move(d)); });
}

ForwardedConnection::~ForwardedConnection() {
  stop_thread();
}

bool ForwardedConnection::drain_due(const DrainRequest& drain, Clock::time_point now) const {
  if (!drain.requested) return false;
  if (now >= drain.deadline) return true;
  return member_spoke_last_ && now - last_activity_ >= drain.quiet &&
         (from_member_.at_boundary() || !from_member_.tls());
}

void ForwardedConnection::run(Dialer dial) {
  std::size_t member = 0;
  if (!stopping_.load() && dial(upstream_, member)) {
    upstream_fd_.store(upstream_.get());
    member_.store(member);
    auto& c = metrics_.member(member);
    c.connections->inc();
    c.active->inc();
    last_activity_ = Clock::now();
    pump();
    c.active->dec();
  }
  done_.store(true);
}

void ForwardedConnection::pump() {
  std::array<char, kBufferBytes> buf{};
  auto& counters = metrics_.member(member_.load());
  for (;;) {
    int timeout_ms = -1;
    const auto now = Clock::now();
    const DrainRequest drain = drain_request();
    if (drain_due(drain, now)) {
      counters.drained->inc();
      return;
    }
    if (drain.requested) {
      auto wait = drain.deadline - now;
      if (member_spoke_last_) wait = std::min(wait, drain.quiet - (now - last_activity_));
      timeout_ms = static_cast<int>(
          std::chrono::ceil<std::chrono::milliseconds>(std::max(wait, Clock::duration(0))).count());
    }
    const auto ready = wait(timeout_ms);
    if (!ready) return;
    if (ready->client) {
      const ssize_t r = ::recv(client_.get(), buf.data(), buf.size(), 0);
      if (r <= 0 && !(r < 0 && errno == EINTR)) return;
      if (r > 0) {
        if (!write_all(upstream_.get(), buf.data(), static_cast<std::size_t>(r))) return;
        counters.bytes_to_member->inc(static_cast<double>(r));
        last_activity_ = Clock::now();
        member_spoke_last_ = false;
      }
    }
    if (ready->member) {
      const ssize_t r = ::recv(upstream_.get(), buf.data(), buf.size(), 0);
      if (r <= 0 && !(r < 0 && errno == EINTR)) return;
      if (r > 0) {
        if (!write_all(client_.get(), buf.data(), static_cast<std::size_t>(r))) return;
        counters.bytes_from_member->inc(static_cast<double>(r));
        last_activity_ = Clock::now();
        member_spoke_last_ = true;
        from_member_.feed(std::string_view(buf.data(), static_cast<std::size_t>(r)));
      }
    }
  }
}

}  // namespace fed::etcdproxy

#include "etcdproxy/forwarded_connection.hpp"

#include <poll.h>
#include <sys/eventfd.h>
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
    : client_(std::move(client)),
      wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      metrics_(metrics) {
  thread_ = std::thread([this, d = std::move(dial)]() mutable { run(std::move(d)); });
}

ForwardedConnection::~ForwardedConnection() {
  stopping_.store(true);
  const std::uint64_t one = 1;
  if (wake_) (void)!::write(wake_.get(), &one, sizeof(one));
  ::shutdown(client_.get(), SHUT_RDWR);  // unblocks a write to a stalled peer
  if (const int up = upstream_fd_.load(); up >= 0) ::shutdown(up, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
}

void ForwardedConnection::drain(Clock::duration quiet, Clock::time_point deadline) {
  {
    std::lock_guard lock(mu_);
    if (draining_) return;
    draining_ = true;
    quiet_ = quiet;
    deadline_ = deadline;
  }
  const std::uint64_t one = 1;
  if (wake_) (void)!::write(wake_.get(), &one, sizeof(one));
}

bool ForwardedConnection::drain_due(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  if (!draining_) return false;
  if (now >= deadline_) return true;
  return member_spoke_last_ && now - last_activity_ >= quiet_ &&
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
    {
      const auto now = Clock::now();
      if (drain_due(now)) {
        counters.drained->inc();
        return;
      }
      std::lock_guard lock(mu_);
      if (draining_) {
        auto wait = deadline_ - now;
        if (member_spoke_last_) wait = std::min(wait, quiet_ - (now - last_activity_));
        timeout_ms = static_cast<int>(
            std::chrono::ceil<std::chrono::milliseconds>(std::max(wait, Clock::duration(0)))
                .count());
      }
    }
    std::array<pollfd, 3> fds{
        {{client_.get(), POLLIN, 0}, {upstream_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}}};
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || stopping_.load()) return;
    if ((fds[2].revents & POLLIN) != 0) {
      std::uint64_t v = 0;
      (void)!::read(wake_.get(), &v, sizeof(v));
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t r = ::recv(client_.get(), buf.data(), buf.size(), 0);
      if (r <= 0 && !(r < 0 && errno == EINTR)) return;
      if (r > 0) {
        if (!write_all(upstream_.get(), buf.data(), static_cast<std::size_t>(r))) return;
        counters.bytes_to_member->inc(static_cast<double>(r));
        std::lock_guard lock(mu_);
        last_activity_ = Clock::now();
        member_spoke_last_ = false;
      }
    }
    if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t r = ::recv(upstream_.get(), buf.data(), buf.size(), 0);
      if (r <= 0 && !(r < 0 && errno == EINTR)) return;
      if (r > 0) {
        if (!write_all(client_.get(), buf.data(), static_cast<std::size_t>(r))) return;
        counters.bytes_from_member->inc(static_cast<double>(r));
        {
          std::lock_guard lock(mu_);
          last_activity_ = Clock::now();
          member_spoke_last_ = true;
          from_member_.feed(std::string_view(buf.data(), static_cast<std::size_t>(r)));
        }
      }
    }
  }
}

}  // namespace fed::etcdproxy

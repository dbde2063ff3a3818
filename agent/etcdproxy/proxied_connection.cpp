#include "agent/etcdproxy/proxied_connection.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>

namespace fed::etcdproxy {

ProxiedConnection::ProxiedConnection(Fd client)
    : client_(std::move(client)), wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void ProxiedConnection::wake() {
  const std::uint64_t one = 1;
  if (wake_) (void)!::write(wake_.get(), &one, sizeof(one));
}

void ProxiedConnection::stop_thread() {
  stopping_.store(true);
  wake();
  ::shutdown(client_.get(), SHUT_RDWR);  // unblocks a handshake or a write to a stalled peer
  if (const int up = upstream_fd_.load(); up >= 0) ::shutdown(up, SHUT_RDWR);
  if (thread_.joinable()) thread_.join();
}

void ProxiedConnection::drain(Clock::duration quiet, Clock::time_point deadline) {
  {
    std::lock_guard lock(mu_);
    if (drain_.requested) return;
    drain_ = {true, quiet, deadline};
  }
  wake();
}

std::optional<ProxiedConnection::Readable> ProxiedConnection::wait(int timeout_ms) {
  std::array<pollfd, 3> fds{
      {{client_.get(), POLLIN, 0}, {upstream_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}}};
  int n = 0;
  do {
    n = ::poll(fds.data(), fds.size(), timeout_ms);
  } while (n < 0 && errno == EINTR);
  if (n < 0 || stopping_.load()) return std::nullopt;
  if ((fds[2].revents & POLLIN) != 0) {
    std::uint64_t v = 0;
    (void)!::read(wake_.get(), &v, sizeof(v));
  }
  constexpr short kReady = POLLIN | POLLHUP | POLLERR;
  return Readable{(fds[0].revents & kReady) != 0, (fds[1].revents & kReady) != 0};
}

ProxiedConnection::DrainRequest ProxiedConnection::drain_request() const {
  std::lock_guard lock(mu_);
  return drain_;
}

}  // namespace fed::etcdproxy

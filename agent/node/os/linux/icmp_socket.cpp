#include "agent/node/os/linux/icmp_socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fed::os {
namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

}  // namespace

Result<IcmpSocket> IcmpSocket::open() {
  Fd fd(::socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMP));
  if (!fd) {
    const int err = errno;
    return fail(err == EPERM || err == EACCES ? ErrorCode::Permission : ErrorCode::Internal,
                "opening a raw ICMP socket for the tunnel probe: " + errno_text(err) +
                    (err == EPERM ? " (the agent needs CAP_NET_RAW)" : ""));
  }
  return IcmpSocket(std::move(fd));
}

Status IcmpSocket::send(net::Ipv4 to, std::span<const std::uint8_t> message) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(to.value);
  const auto n = ::sendto(fd_.get(), message.data(), message.size(), MSG_DONTWAIT,
                          reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  if (n < 0) {
    return fail(ErrorCode::Unavailable, "ICMP echo to " + to.str() + ": " + errno_text(errno));
  }
  return ok();
}

Result<std::size_t> IcmpSocket::receive(std::span<std::uint8_t> buffer,
                                        std::chrono::milliseconds timeout) {
  pollfd p{fd_.get(), POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(timeout.count(), 0)));
  if (ready < 0) {
    if (errno == EINTR) return std::size_t{0};
    return fail(ErrorCode::Internal, "waiting for ICMP replies: " + errno_text(errno));
  }
  if (ready == 0) return std::size_t{0};
  const auto n = ::recv(fd_.get(), buffer.data(), buffer.size(), MSG_DONTWAIT);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return std::size_t{0};
    return fail(ErrorCode::Internal, "reading ICMP replies: " + errno_text(errno));
  }
  return static_cast<std::size_t>(n);
}

}  // namespace fed::os

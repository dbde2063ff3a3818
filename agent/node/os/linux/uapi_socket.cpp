#include "agent/node/os/linux/uapi_socket.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

namespace fed::os {
namespace {

using Clock = std::chrono::steady_clock;

Error socket_error(std::string_view what, const std::string& path, int err) {
  ErrorCode code = ErrorCode::Internal;
  std::string hint;
  switch (err) {
    case ENOENT:
      code = ErrorCode::NotFound;
      hint = " (no WireGuard daemon serves this interface)";
      break;
    case ECONNREFUSED:
      code = ErrorCode::Unavailable;
      hint = " (the daemon that made it is gone; starting a new one replaces it)";
      break;
    case EACCES:
    case EPERM:
      code = ErrorCode::Permission;
      hint = " (the agent must run as root)";
      break;
    case EAGAIN:
    case EINTR:
    case ETIMEDOUT:
      code = ErrorCode::Unavailable;
      break;
    default:
      break;
  }
  return Error(code, std::string(what) + " " + path + ": " + std::strerror(err) + hint);
}

// Milliseconds left until `deadline`, at least 0, for poll().
int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

Result<UapiSocket> UapiSocket::connect(const std::string& path, std::chrono::milliseconds timeout) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    return fail(ErrorCode::Invalid,
                "UAPI socket path " + path + " is too long for a unix socket; shorten it");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return Unexpected(socket_error("create a socket for", path, errno));
  // A unix stream connect to a listening socket completes at once (or fails at once when the
  // backlog is full), so no timeout is needed here.
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return Unexpected(socket_error("connect to WireGuard UAPI socket", path, errno));
  }
  return UapiSocket(std::move(fd), path, timeout);
}

Result<std::string> UapiSocket::exchange(std::string_view request) {
  const auto deadline = Clock::now() + timeout_;
  for (std::size_t sent = 0; sent < request.size();) {
    // MSG_NOSIGNAL: a daemon that goes away mid-request is an error value, not a SIGPIPE.
    const ssize_t n = ::send(fd_.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Unexpected(socket_error("send to WireGuard UAPI socket", path_, errno));
    }
    sent += static_cast<std::size_t>(n);
  }
  std::string answer;
  char buf[4096];
  // Every answer ends with "errno=N\n\n" and holds no other empty line.
  while (!answer.ends_with("\n\n")) {
    pollfd p{fd_.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Unexpected(socket_error("wait for WireGuard UAPI socket", path_, errno));
    if (ready == 0) {
      return fail(ErrorCode::Unavailable,
                  "WireGuard daemon on " + path_ + " did not answer within " +
                      std::to_string(timeout_.count()) + " ms; it may be stuck (restart it)");
    }
    const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Unexpected(socket_error("read from WireGuard UAPI socket", path_, errno));
    if (n == 0) {
      return fail(ErrorCode::Unavailable, "WireGuard daemon on " + path_ +
                                              " closed the connection before answering in "
                                              "full; it may have exited (check its log)");
    }
    answer.append(buf, static_cast<std::size_t>(n));
  }
  return answer;
}

}  // namespace fed::os

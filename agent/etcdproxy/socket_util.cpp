#include "agent/etcdproxy/socket_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace fed::etcdproxy {
namespace {

struct SockAddr {
  sockaddr_storage storage{};
  socklen_t len = 0;
};

Result<SockAddr> to_sockaddr(const HostPort& a) {
  SockAddr s;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&s.storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&s.storage);
  if (inet_pton(AF_INET, a.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(a.port);
    s.len = sizeof(sockaddr_in);
  } else if (inet_pton(AF_INET6, a.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(a.port);
    s.len = sizeof(sockaddr_in6);
  } else {
    return fail(ErrorCode::Invalid, "\"" + a.host + "\" is not a numeric IP address");
  }
  return s;
}

std::string label(const HostPort& a) {
  return a.host + ":" + std::to_string(a.port);
}

}  // namespace

Result<HostPort> parse_host_port(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) {
    return fail(ErrorCode::Invalid, "\"" + std::string(text) + "\" is not host:port");
  }
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const auto port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [ptr, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port > 65535) {
    return fail(ErrorCode::Invalid, "bad port in \"" + std::string(text) + "\"");
  }
  HostPort hp{std::string(host), static_cast<std::uint16_t>(port)};
  FED_TRY(to_sockaddr(hp));
  return hp;
}

Result<HostPort> parse_member_url(std::string_view url) {
  for (std::string_view scheme : {"https://", "http://"}) {
    if (url.rfind(scheme, 0) == 0) {
      auto rest = url.substr(scheme.size());
      if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
        rest = rest.substr(0, slash);
      }
      return parse_host_port(rest);
    }
  }
  return fail(ErrorCode::Invalid,
              "member \"" + std::string(url) + "\" must be a URL like https://10.0.0.1:2379");
}

Result<Fd> listen_tcp(const HostPort& address) {
  FED_ASSIGN_OR_RETURN(auto sa, to_sockaddr(address));
  Fd fd(::socket(sa.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fail(ErrorCode::Internal, std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&sa.storage), sa.len) != 0) {
    return fail(ErrorCode::Unavailable,
                "cannot listen on " + label(address) + ": " + std::strerror(errno));
  }
  if (::listen(fd.get(), 512) != 0) {
    return fail(ErrorCode::Unavailable,
                "listen on " + label(address) + ": " + std::strerror(errno));
  }
  return fd;
}

Result<std::uint16_t> local_port(const Fd& fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    return fail(ErrorCode::Internal, std::string("getsockname: ") + std::strerror(errno));
  }
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
}

Result<Fd> dial_tcp(const HostPort& address, std::chrono::milliseconds timeout) {
  FED_ASSIGN_OR_RETURN(auto sa, to_sockaddr(address));
  Fd fd(::socket(sa.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return fail(ErrorCode::Internal, std::string("socket: ") + std::strerror(errno));
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sa.storage), sa.len) != 0) {
    if (errno != EINPROGRESS) {
      return fail(ErrorCode::Unavailable,
                  "cannot connect to " + label(address) + ": " + std::strerror(errno));
    }
    pollfd p{fd.get(), POLLOUT, 0};
    const int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (n == 0) {
      return fail(ErrorCode::Unavailable, "cannot connect to " + label(address) + ": timed out");
    }
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (n < 0 || err != 0) {
      return fail(ErrorCode::Unavailable, "cannot connect to " + label(address) + ": " +
                                              std::strerror(n < 0 ? errno : err));
    }
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace fed::etcdproxy

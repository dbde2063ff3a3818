#include "shared/http/address.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>

#include "shared/raii/c_handle.hpp"

namespace fed::http {
namespace {

using AddrInfo = CHandle<addrinfo, freeaddrinfo>;

Unexpected bad_address(std::string_view address, std::string_view why) {
  return fail(ErrorCode::Invalid, "bind address \"" + std::string(address) +
                                      "\": " + std::string(why) +
                                      " (use host:port, e.g. 0.0.0.0:9440, 127.0.0.1:0 or "
                                      "[::1]:9440)");
}

}  // namespace

Result<SocketAddress> resolve_listen_address(std::string_view address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return bad_address(address, "missing port");
  std::string host(address.substr(0, colon));
  const std::string port(address.substr(colon + 1));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return bad_address(address, "put IPv6 addresses in brackets");
  }
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return bad_address(address, "port must be a number from 0 to 65535");
  }
  addrinfo hints{};
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_family = host.empty() ? AF_INET : AF_UNSPEC;
  addrinfo* raw = nullptr;
  const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &raw);
  AddrInfo info(raw);
  if (rc != 0 || info == nullptr) return bad_address(address, ::gai_strerror(rc));
  SocketAddress out;
  std::memcpy(&out.storage, info->ai_addr, info->ai_addrlen);
  out.length = info->ai_addrlen;
  return out;
}

std::string format_address(const sockaddr* addr) {
  char host[INET6_ADDRSTRLEN] = {};
  if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "?";
}

std::uint16_t port_of(const sockaddr* addr) {
  if (addr->sa_family == AF_INET)
    return ntohs(reinterpret_cast<const sockaddr_in*>(addr)->sin_port);
  if (addr->sa_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(addr)->sin6_port);
  }
  return 0;
}

Result<Fd> listen_on(const SocketAddress& address, std::string_view display, int backlog) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&address.storage);
  Fd fd(::socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) {
    return fail(ErrorCode::Internal,
                "socket for " + std::string(display) + ": " + std::strerror(errno));
  }
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), sa, address.length) != 0) {
    const int err = errno;
    return fail(
        err == EADDRINUSE ? ErrorCode::Unavailable : ErrorCode::Invalid,
        "bind " + std::string(display) + ": " + std::strerror(err) +
            (err == EADDRINUSE ? "; another process holds the port, choose another one" : ""));
  }
  if (::listen(fd.get(), backlog) != 0) {
    return fail(ErrorCode::Internal,
                "listen " + std::string(display) + ": " + std::strerror(errno));
  }
  return fd;
}

}  // namespace fed::http

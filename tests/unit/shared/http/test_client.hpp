#pragma once
// A raw HTTP client for the server tests: sends exact bytes to 127.0.0.1 and returns the
// whole answer, so that malformed and oversized requests can be sent too.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "raii/fd.hpp"

namespace fed::http::test {

// Connects to 127.0.0.1:`port`; an invalid Fd on failure.
inline Fd connect_loopback(std::uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return Fd();
  return fd;
}

// Sends `request` and reads until the server closes.
inline std::string send_raw(std::uint16_t port, const std::string& request) {
  Fd fd = connect_loopback(port);
  if (!fd) return "connect failed";
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t w = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (w <= 0) break;
    sent += static_cast<std::size_t>(w);
  }
  std::string out;
  char buf[4096];
  ssize_t r = 0;
  while ((r = ::recv(fd.get(), buf, sizeof buf, 0)) > 0)
    out.append(buf, static_cast<std::size_t>(r));
  return out;
}

inline std::string get(std::uint16_t port, const std::string& path) {
  return send_raw(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
}

// The status line of a raw answer: "HTTP/1.1 200 OK".
inline std::string status_line(const std::string& answer) {
  return answer.substr(0, answer.find("\r\n"));
}

// The body of a raw answer.
inline std::string body_of(const std::string& answer) {
  const auto pos = answer.find("\r\n\r\n");
  return pos == std::string::npos ? "" : answer.substr(pos + 4);
}

}  // namespace fed::http::test

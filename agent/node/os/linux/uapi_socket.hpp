#pragma once
// UapiSocket: one connection to a WireGuard daemon's UAPI unix socket
// (/var/run/wireguard/<interface>.sock), owned by an Fd and closed with it. A request is text
// ending with an empty line; so is its answer, which is how the end of an answer is found (the
// daemon keeps the connection open for further requests).

#include <chrono>
#include <string>
#include <string_view>

#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::os {

class UapiSocket final {
 public:
  // Connects to the socket at `path`. NotFound when there is no socket file, Unavailable when
  // nothing listens on it (a daemon that died), Permission when we may not connect.
  // `timeout` bounds every later exchange.
  static Result<UapiSocket> connect(const std::string& path, std::chrono::milliseconds timeout);

  // Sends `request` and returns the answer up to and including its closing empty line.
  // Unavailable when the daemon closes the connection or does not answer within the timeout.
  Result<std::string> exchange(std::string_view request);

 private:
  UapiSocket(Fd fd, std::string path, std::chrono::milliseconds timeout)
      : fd_(std::move(fd)), path_(std::move(path)), timeout_(timeout) {}

  Fd fd_;
  std::string path_;
  std::chrono::milliseconds timeout_;
};

}  // namespace fed::os

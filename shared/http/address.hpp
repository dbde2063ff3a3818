#pragma once
// Listening addresses written as "host:port": "0.0.0.0:9440", "127.0.0.1:0", ":9440" (all
// IPv4 interfaces), "[::1]:9440", "localhost:8080". Port 0 asks the kernel for a free port.

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::http {

// A resolved socket address.
struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

// Splits and resolves `host:port`. An Invalid error names the flag-style input and shows the
// expected form.
Result<SocketAddress> resolve_listen_address(std::string_view address);

// Formats as "127.0.0.1:9440" or "[::1]:9440".
std::string format_address(const sockaddr* addr);

// The port of an IPv4 or IPv6 socket address.
std::uint16_t port_of(const sockaddr* addr);

// Creates a non-blocking, close-on-exec listening TCP socket bound to `address` (with
// SO_REUSEADDR so a restarted agent rebinds at once). Unavailable when the port is taken.
Result<Fd> listen_on(const SocketAddress& address, std::string_view display, int backlog = 128);

}  // namespace fed::http

#pragma once
// TCP plumbing for the proxy: address parsing, a listening socket, a dial with a time limit.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

struct HostPort {
  std::string host;  // numeric IPv4 or IPv6 (no DNS: the proxy must not depend on a resolver)
  std::uint16_t port = 0;
};

// "10.0.0.1:2379", "[::1]:2379". Invalid names the text.
Result<HostPort> parse_host_port(std::string_view text);
// "https://10.0.0.1:2379" -> 10.0.0.1:2379.
Result<HostPort> parse_member_url(std::string_view url);

// A listening, close-on-exec socket with SO_REUSEADDR. Unavailable when the port is taken.
Result<Fd> listen_tcp(const HostPort& address);
// The port a listening socket got (for port 0).
Result<std::uint16_t> local_port(const Fd& fd);

// Connects within `timeout`; the socket is blocking with TCP_NODELAY afterwards.
Result<Fd> dial_tcp(const HostPort& address, std::chrono::milliseconds timeout);

}  // namespace fed::etcdproxy

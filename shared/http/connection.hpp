#pragma once
// Internals of the Server shared by its plain and TLS paths: byte transports with deadlines
// and stop-awareness, and the one-request-per-connection exchange. Not for use elsewhere.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/message.hpp"

struct ssl_ctx_st;

namespace fed::http::detail {

using Clock = std::chrono::steady_clock;

enum class IoStatus { Ok, Closed, TimedOut, Stopped, Failed };

// Waits until `fd` is ready for `events` (POLLIN/POLLOUT), `stop_fd` turns readable (ignored
// when negative), or `deadline` passes.
IoStatus wait_ready(int fd, short events, int stop_fd, Clock::time_point deadline);

// A connected socket's byte stream, plain or TLS. The socket is non-blocking.
class Transport {
 public:
  virtual ~Transport() = default;
  // Completes the TLS handshake (a no-op for plain TCP).
  virtual IoStatus handshake(Clock::time_point deadline) = 0;
  // Reads at least one byte into `buf`; Closed at end of stream; Stopped if the server stops.
  virtual IoStatus read_some(char* buf, std::size_t n, std::size_t& got,
                             Clock::time_point deadline) = 0;
  // Writes all of `data`; ignores a stop so that an answer in flight completes.
  virtual IoStatus write_all(std::string_view data, Clock::time_point deadline) = 0;
  // Ends the stream in an orderly way (TLS close_notify, then FIN).
  virtual void shutdown() = 0;
};

std::unique_ptr<Transport> make_plain_transport(int fd, int stop_fd);
std::unique_ptr<Transport> make_tls_transport(std::shared_ptr<ssl_ctx_st> ctx, int fd, int stop_fd);

struct Route {
  Handler handler;
  std::vector<std::string> methods;
};
using Routes = std::map<std::string, Route, std::less<>>;

struct Limits {
  std::size_t max_header_bytes;
  std::size_t max_body_bytes;
  std::chrono::milliseconds io_timeout;
};

// Reads one request, dispatches it by exact path and writes the answer (400, 404, 405, 411,
// 413, 431 and 500 are produced here). Never throws.
void serve_connection(Transport& transport, const Routes& routes, const Limits& limits,
                      const std::string& remote, std::string_view server_name);

}  // namespace fed::http::detail

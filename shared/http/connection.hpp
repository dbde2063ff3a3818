#pragma once
// Internals of the Server shared by its plain and TLS paths: byte transports with deadlines
// and stop-awareness, and the one-request-per-connection exchange. Not for use elsewhere.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/http/message.hpp"

struct ssl_ctx_st;

namespace fed::http::detail {

using Clock = std::chrono::steady_clock;

enum class IoStatus { Ok, Closed, TimedOut, Stopped, Failed };

// Waits until `fd` is ready for `events` (POLLIN/POLLOUT), `stop_fd` turns readable (ignored
// when negative), or `deadline` passes.
IoStatus wait_ready(int fd, short events, int stop_fd, Clock::time_point deadline);

// Whether `fd` (the stop eventfd) is readable right now.
bool readable_now(int fd);

// What a write does when the server stops: an ordinary answer in flight completes, a stream
// (which may never end on its own) gives up before writing and while waiting.
enum class OnStop { Finish, Abort };

// A connected socket's byte stream, plain or TLS. The socket is non-blocking.
class Transport {
 public:
  virtual ~Transport() = default;
  // Completes the TLS handshake (a no-op for plain TCP).
  virtual IoStatus handshake(Clock::time_point deadline) = 0;
  // Reads at least one byte into `buf`; Closed at end of stream; Stopped if the server stops.
  virtual IoStatus read_some(char* buf, std::size_t n, std::size_t& got,
                             Clock::time_point deadline) = 0;
  // Writes all of `data`; Stopped (with part of it possibly written) only with OnStop::Abort.
  virtual IoStatus write_all(std::string_view data, Clock::time_point deadline, OnStop on_stop) = 0;
  // Ends the stream in an orderly way (TLS close_notify, then FIN).
  virtual void shutdown() = 0;
  // The verified client certificate's subject after a successful handshake; nullopt for plain
  // TCP and when the TLS server does not ask for client certificates.
  virtual std::optional<PeerIdentity> peer() const { return std::nullopt; }
  // The socket and the server's stop eventfd.
  virtual int fd() const = 0;
  virtual int stop_fd() const = 0;
};

std::unique_ptr<Transport> make_plain_transport(int fd, int stop_fd);
std::unique_ptr<Transport> make_tls_transport(std::shared_ptr<ssl_ctx_st> ctx, int fd, int stop_fd);

struct Route {
  Handler handler;
  std::vector<std::string> methods;
};
using RouteMap = std::map<std::string, Route, std::less<>>;
struct Routes {
  RouteMap exact;     // by path
  RouteMap prefixes;  // by path prefix, for paths without an exact route; the longest wins
};

struct Limits {
  std::size_t max_header_bytes;
  std::size_t max_body_bytes;
  std::chrono::milliseconds io_timeout;
};

// Reads one request, dispatches it by exact path, else by longest prefix, and writes the answer
// (400, 404, 405, 411, 413, 431 and 500 are produced here). Never throws.
void serve_connection(Transport& transport, const Routes& routes, const Limits& limits,
                      const std::string& remote, std::string_view server_name);

// Writes a streamed answer: the chunked head, then (unless `body` is Omit, for HEAD) the chunks
// `response.stream` produces and the last chunk. False when the answer was cut short (a write
// failed or timed out, the server is stopping, or the stream threw): the caller then closes
// without the orderly shutdown.
bool write_streamed(Transport& transport, const Response& response, BodyMode body,
                    const Limits& limits, const std::string& remote, std::string_view server_name);

}  // namespace fed::http::detail

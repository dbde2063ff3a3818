#include "shared/http/connection.hpp"

#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>

#include "shared/http/request_parser.hpp"
#include "shared/util/strings.hpp"

namespace fed::http::detail {
namespace {

class PlainTransport final : public Transport {
 public:
  PlainTransport(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}

  IoStatus handshake(Clock::time_point) override { return IoStatus::Ok; }
  int fd() const override { return fd_; }
  int stop_fd() const override { return stop_fd_; }

  IoStatus read_some(char* buf, std::size_t n, std::size_t& got,
                     Clock::time_point deadline) override {
    while (true) {
      const ssize_t r = ::recv(fd_, buf, n, 0);
      if (r > 0) {
        got = static_cast<std::size_t>(r);
        return IoStatus::Ok;
      }
      if (r == 0) return IoStatus::Closed;
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return IoStatus::Failed;
      const IoStatus s = wait_ready(fd_, POLLIN, stop_fd_, deadline);
      if (s != IoStatus::Ok) return s;
    }
  }

  IoStatus write_all(std::string_view data, Clock::time_point deadline, OnStop on_stop) override {
    if (on_stop == OnStop::Abort && readable_now(stop_fd_)) return IoStatus::Stopped;
    while (!data.empty()) {
      const ssize_t w = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (w > 0) {
        data.remove_prefix(static_cast<std::size_t>(w));
        continue;
      }
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return IoStatus::Failed;
      const IoStatus s =
          wait_ready(fd_, POLLOUT, on_stop == OnStop::Abort ? stop_fd_ : -1, deadline);
      if (s != IoStatus::Ok) return s;
    }
    return IoStatus::Ok;
  }

  void shutdown() override { ::shutdown(fd_, SHUT_WR); }

 private:
  int fd_;
  int stop_fd_;
};

// A Transport handed to a Response::take_over handler.
class TakenTransport final : public TakenConnection {
 public:
  TakenTransport(Transport& t, std::chrono::milliseconds io_timeout)
      : t_(t), io_timeout_(io_timeout) {}

  Read read_available(std::string& out) override {
    bool got = false;
    char buf[16 * 1024];
    while (true) {
      std::size_t n = 0;
      // A deadline already passed: one non-blocking attempt.
      const IoStatus s = t_.read_some(buf, sizeof buf, n, Clock::now());
      if (s == IoStatus::TimedOut) return got ? Read::Data : Read::Idle;
      if (s != IoStatus::Ok) return got ? Read::Data : Read::Closed;
      out.append(buf, n);
      got = true;
    }
  }

  bool write(std::string_view data) override {
    return t_.write_all(data, Clock::now() + io_timeout_, OnStop::Abort) == IoStatus::Ok;
  }

  int fd() const override { return t_.fd(); }
  int stop_fd() const override { return t_.stop_fd(); }

 private:
  Transport& t_;
  std::chrono::milliseconds io_timeout_;
};

// Marks "close without answering" (status 0).
Response no_answer() {
  Response r;
  r.status = 0;
  return r;
}

Response error_response(int status, std::string message) {
  return Response::text(status, std::move(message));
}

// Reads the head and body of one request into `head`, or returns the error to answer with
// (status 0 = close without answering: the peer left, timed out or the server is stopping).
Response read_request(Transport& t, const Limits& limits, Clock::time_point deadline,
                      RequestHead& head) {
  std::string buffer;
  std::size_t head_end = std::string::npos;
  char chunk[4096];
  while (head_end == std::string::npos) {
    if (buffer.size() > limits.max_header_bytes) {
      return error_response(
          431, "request headers exceed " + std::to_string(limits.max_header_bytes) + " bytes");
    }
    std::size_t got = 0;
    const IoStatus s = t.read_some(chunk, sizeof chunk, got, deadline);
    if (s == IoStatus::TimedOut && !buffer.empty()) return error_response(408, "request timeout");
    if (s != IoStatus::Ok) return no_answer();
    // Search only the new bytes (plus 3 of overlap) for the blank line.
    const std::size_t from = buffer.size() >= 3 ? buffer.size() - 3 : 0;
    buffer.append(chunk, got);
    const std::size_t rel = find_head_end(std::string_view(buffer).substr(from));
    if (rel != std::string::npos) head_end = from + rel;
  }
  if (head_end > limits.max_header_bytes) {
    return error_response(
        431, "request headers exceed " + std::to_string(limits.max_header_bytes) + " bytes");
  }
  auto parsed = parse_request_head(std::string_view(buffer).substr(0, head_end));
  if (!parsed) return error_response(400, parsed.error().message());
  head = std::move(parsed).value();
  if (head.chunked) {
    return error_response(411, "chunked request bodies are refused; send Content-Length");
  }
  if (head.content_length > limits.max_body_bytes) {
    return error_response(413, "request body of " + std::to_string(head.content_length) +
                                   " bytes exceeds the limit of " +
                                   std::to_string(limits.max_body_bytes));
  }
  std::string& body = head.request.body;
  body = buffer.substr(head_end, head.content_length);
  while (body.size() < head.content_length) {
    std::size_t got = 0;
    const std::size_t want = std::min(sizeof chunk, head.content_length - body.size());
    const IoStatus s = t.read_some(chunk, want, got, deadline);
    if (s == IoStatus::TimedOut) return error_response(408, "request timeout");
    if (s != IoStatus::Ok) return no_answer();
    body.append(chunk, got);
  }
  return Response{};
}

// The exact route for `path`, else the one with the longest prefix of it; null if none.
const Route* find_route(const Routes& routes, std::string_view path) {
  if (const auto it = routes.exact.find(path); it != routes.exact.end()) return &it->second;
  const Route* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& [prefix, route] : routes.prefixes) {
    if (path.starts_with(prefix) && (best == nullptr || prefix.size() > best_length)) {
      best = &route;
      best_length = prefix.size();
    }
  }
  return best;
}

Response dispatch(const Routes& routes, const Request& request, std::string_view server_name) {
  const Route* found = find_route(routes, request.path);
  if (found == nullptr) return error_response(404, "no handler for " + request.path);
  const Route& route = *found;
  if (std::find(route.methods.begin(), route.methods.end(), request.method) ==
      route.methods.end()) {
    Response r = error_response(405, "method " + request.method + " not allowed");
    r.headers.emplace_back("Allow", util::join(route.methods, ", "));
    return r;
  }
  try {
    return route.handler(request);
  } catch (const std::exception& e) {
    spdlog::error("{} server: handler for {} threw: {}", server_name, request.path, e.what());
  } catch (...) {
    spdlog::error("{} server: handler for {} threw a non-standard exception", server_name,
                  request.path);
  }
  return error_response(500, "internal error");
}

// Half-closes, then reads what the client still sends (a refused body) until it closes, so
// that closing with unread data does not reset the connection before it reads the answer.
void close_lingering(Transport& t) {
  t.shutdown();
  const Clock::time_point linger = Clock::now() + std::chrono::seconds(1);
  char sink[4096];
  std::size_t got = 0;
  for (int i = 0; i < 64 && t.read_some(sink, sizeof sink, got, linger) == IoStatus::Ok; ++i) {
  }
}

}  // namespace

bool readable_now(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

IoStatus wait_ready(int fd, short events, int stop_fd, Clock::time_point deadline) {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return IoStatus::TimedOut;
    pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
    const int n = ::poll(fds, stop_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long>(left, 1000)));
    if (n < 0 && errno != EINTR) return IoStatus::Failed;
    if (n <= 0) continue;
    if (stop_fd >= 0 && (fds[1].revents & POLLIN) != 0) return IoStatus::Stopped;
    if ((fds[0].revents & (events | POLLHUP | POLLERR)) != 0) return IoStatus::Ok;
  }
}

std::unique_ptr<Transport> make_plain_transport(int fd, int stop_fd) {
  return std::make_unique<PlainTransport>(fd, stop_fd);
}

void serve_connection(Transport& t, const Routes& routes, const Limits& limits,
                      const std::string& remote, std::string_view server_name) {
  const Clock::time_point deadline = Clock::now() + limits.io_timeout;
  if (t.handshake(deadline) != IoStatus::Ok) {
    spdlog::debug("{} server: handshake with {} failed", server_name, remote);
    return;
  }
  RequestHead head;
  Response response = read_request(t, limits, deadline, head);
  if (response.status == 0) return;
  head.request.remote_address = remote;
  head.request.peer = t.peer();
  BodyMode body = BodyMode::Include;
  if (response.status == 200) {
    response = dispatch(routes, head.request, server_name);
    if (head.request.method == "HEAD") body = BodyMode::Omit;
    spdlog::trace("{} server: {} {} {} -> {}", server_name, remote, head.request.method,
                  head.request.target, response.status);
  } else {
    spdlog::debug("{} server: refused request from {}: {} {}", server_name, remote, response.status,
                  util::trim(response.body));
  }
  if (response.take_over) {
    TakenTransport taken(t, limits.io_timeout);
    try {
      response.take_over(taken);
    } catch (const std::exception& e) {
      spdlog::error("{} server: taken-over connection from {} threw: {}", server_name, remote,
                    e.what());
    }
    t.shutdown();
    return;
  }
  if (response.stream) {
    if (write_streamed(t, response, body, limits, remote, server_name)) close_lingering(t);
    return;
  }
  // The answer gets its own full timeout so that a slow handler does not cut it off.
  if (t.write_all(serialize(response, body), Clock::now() + limits.io_timeout, OnStop::Finish) !=
      IoStatus::Ok) {
    return;
  }
  close_lingering(t);
}

}  // namespace fed::http::detail

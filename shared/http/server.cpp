#include "shared/http/server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <cassert>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "shared/http/address.hpp"

namespace fed::http {

Result<std::unique_ptr<Server>> Server::create(ServerOptions options) {
  FED_TRY(resolve_listen_address(options.bind_address));
  if (options.max_connections == 0 || options.io_timeout.count() <= 0) {
    return fail(ErrorCode::Invalid, options.name +
                                        " server: max_connections and io_timeout "
                                        "must be positive");
  }
  std::unique_ptr<TlsContext> tls;
  if (options.tls) {
    auto loaded = TlsContext::load(*options.tls);
    if (!loaded) return std::move(loaded).error().with_context(options.name + " server");
    tls = std::move(loaded).value();
  }
  Fd stop_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_fd) return fail(ErrorCode::Internal, std::string("eventfd: ") + std::strerror(errno));
  return std::unique_ptr<Server>(
      new Server(std::move(options), std::move(tls), std::move(stop_fd)));
}

Server::Server(ServerOptions options, std::unique_ptr<TlsContext> tls, Fd stop_fd)
    : options_(std::move(options)), tls_(std::move(tls)), stop_fd_(std::move(stop_fd)) {}

Server::~Server() {
  stop();
}

void Server::handle(std::string path, Handler handler, std::vector<std::string> methods) {
  assert(!started_ && "register handlers before start()");
  routes_.exact[std::move(path)] = detail::Route{std::move(handler), std::move(methods)};
}

void Server::handle_prefix(std::string prefix, Handler handler, std::vector<std::string> methods) {
  assert(!started_ && "register handlers before start()");
  routes_.prefixes[std::move(prefix)] = detail::Route{std::move(handler), std::move(methods)};
}

Status Server::start() {
  std::lock_guard lock(stop_mu_);
  assert(!started_ && "start() runs once");
  FED_ASSIGN_OR_RETURN(const SocketAddress address, resolve_listen_address(options_.bind_address));
  auto fd = listen_on(address, options_.bind_address);
  if (!fd) return std::move(fd).error().with_context(options_.name + " server");
  listen_fd_ = std::move(fd).value();
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  local_address_ = format_address(reinterpret_cast<const sockaddr*>(&bound));
  port_ = port_of(reinterpret_cast<const sockaddr*>(&bound));
  started_ = true;
  acceptor_ = std::thread([this] { accept_loop(); });
  spdlog::info("{} server listening on {}{}", options_.name, local_address_, tls_ ? " (TLS)" : "");
  return ok();
}

void Server::stop() {
  std::lock_guard lock(stop_mu_);
  if (!started_ || stopped_) return;
  stopped_ = true;
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(stop_fd_.get(), &one, sizeof one);
  acceptor_.join();  // it joins the connection threads on its way out
  listen_fd_.reset();
  spdlog::info("{} server on {} stopped", options_.name, local_address_);
}

void Server::accept_loop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {stop_fd_.get(), POLLIN, 0}};
    // Wake at least every second to join finished connection threads.
    const int n = ::poll(fds, 2, 1000);
    reap(false);
    if (n < 0 && errno != EINTR) {
      spdlog::error("{} server: poll: {}", options_.name, std::strerror(errno));
      break;
    }
    if (n > 0 && (fds[1].revents & POLLIN) != 0) break;
    if (n > 0 && (fds[0].revents & POLLIN) != 0) accept_one();
  }
  // Stop accepting at once; connections then finish or notice the stop.
  listen_fd_.reset();
  reap(true);
}

void Server::accept_one() {
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  Fd fd(::accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&peer), &len,
                  SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
      spdlog::warn("{} server: accept: {}", options_.name, std::strerror(errno));
    }
    return;
  }
  std::string remote = format_address(reinterpret_cast<const sockaddr*>(&peer));
  if (connections_.size() >= options_.max_connections) {
    // Best effort: the socket is non-blocking and the answer fits the send buffer.
    const std::string busy = serialize(Response::text(503, "too many connections; retry"));
    [[maybe_unused]] const auto w = ::send(fd.get(), busy.data(), busy.size(), MSG_NOSIGNAL);
    spdlog::warn("{} server: refused {}: {} connections open", options_.name, remote,
                 connections_.size());
    return;
  }
  Connection& conn = connections_.emplace_back();
  const detail::Limits limits{options_.max_header_bytes, options_.max_body_bytes,
                              options_.io_timeout};
  std::shared_ptr<ssl_ctx_st> ctx = tls_ ? tls_->current() : nullptr;
  conn.thread = std::thread([this, &conn, limits, ctx = std::move(ctx), fd = std::move(fd),
                             remote = std::move(remote)]() mutable {
    // OpenSSL writes with write(), not send(MSG_NOSIGNAL): a client that hangs up mid-answer
    // would raise SIGPIPE and kill the process. Blocked here, the write fails with EPIPE instead
    // and the signal, directed at this thread, is discarded when it exits.
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
    auto transport = ctx ? detail::make_tls_transport(std::move(ctx), fd.get(), stop_fd_.get())
                         : detail::make_plain_transport(fd.get(), stop_fd_.get());
    detail::serve_connection(*transport, routes_, limits, remote, options_.name);
    transport.reset();
    fd.reset();
    conn.done.store(true, std::memory_order_release);
  });
}

void Server::reap(bool all) {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (all || it->done.load(std::memory_order_acquire)) {
      it->thread.join();
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace fed::http

#pragma once
// A small embedded HTTP/1.1 server for /healthz, /readyz, /metrics and (with TLS) admission
// webhooks. One request per connection (Connection: close), one thread per connection up to
// a cap, exact-path and prefix routing, optional client certificates, streamed (chunked)
// answers, size limits and a graceful stop that lets answers in flight finish and ends streams.
//
//   http::ServerOptions options;
//   options.bind_address = "0.0.0.0:9440";
//   FED_ASSIGN_OR_RETURN(auto server, http::Server::create(options));
//   server->handle("/healthz", [](const http::Request&) { return http::Response::text(200, "ok");
//   }); FED_TRY(server->start());
//   ...
//   server->stop();

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "shared/http/connection.hpp"
#include "shared/http/message.hpp"
#include "shared/http/tls.hpp"
#include "shared/raii/fd.hpp"
#include "shared/result/result.hpp"

namespace fed::http {

struct ServerOptions {
  std::string bind_address = "0.0.0.0:9440";     // host:port; port 0 = any free port
  std::size_t max_header_bytes = 16 * 1024;      // larger heads get 431
  std::size_t max_body_bytes = 1024 * 1024;      // larger bodies get 413
  std::size_t max_connections = 64;              // more concurrent connections get 503
  std::chrono::milliseconds io_timeout{10'000};  // to read a request, again to answer it,
                                                 // and for each chunk of a streamed answer
  std::optional<TlsFiles> tls;                   // serve HTTPS when set
  std::string name = "http";                     // in log lines: "health", "webhook"
};

class Server final {
 public:
  // Checks the options (address syntax, TLS files) without binding. Invalid names the problem.
  static Result<std::unique_ptr<Server>> create(ServerOptions options);
  ~Server();  // stops if running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Routes requests for exactly `path` with one of `methods` to `handler`. Call before start().
  void handle(std::string path, Handler handler,
              std::vector<std::string> methods = {"GET", "HEAD"});

  // Routes requests whose path starts with `prefix` and has no exact route: the longest
  // matching prefix wins ("/containerLogs/" for "/containerLogs/ns/pod/c"); the handler reads
  // the rest from Request::path. A wrong method gets 405, as for exact routes. Call before
  // start().
  void handle_prefix(std::string prefix, Handler handler,
                     std::vector<std::string> methods = {"GET", "HEAD"});

  // Binds, listens and starts accepting on a background thread. Unavailable when the port is
  // taken. Call once.
  Status start();

  // The bound address ("127.0.0.1:40213"), with the real port when port 0 was asked for.
  const std::string& local_address() const { return local_address_; }
  std::uint16_t port() const { return port_; }

  // Stops accepting, wakes idle connections, waits for answers in flight, makes the writers of
  // streams return false (streams must then return) and joins every thread. Idempotent.
  void stop();

 private:
  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  Server(ServerOptions options, std::unique_ptr<TlsContext> tls, Fd stop_fd);
  void accept_loop();
  void accept_one();
  void reap(bool all);

  const ServerOptions options_;
  std::unique_ptr<TlsContext> tls_;
  detail::Routes routes_;  // written before start(), read-only after
  Fd listen_fd_;
  Fd stop_fd_;  // eventfd, readable once stop() runs
  std::string local_address_;
  std::uint16_t port_ = 0;
  std::thread acceptor_;
  std::list<Connection> connections_;  // owned by the accept thread until stop()
  std::mutex stop_mu_;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace fed::http

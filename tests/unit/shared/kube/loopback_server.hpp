#pragma once
// A tiny HTTP/1.1 server on 127.0.0.1 for the REST client tests: real sockets (optionally TLS),
// one thread per connection, keep-alive, scripted responses (status, headers, body, delays,
// chunked streams held open, connections dropped mid-request). Records every request.

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "shared/kube/resource_ref.hpp"
#include "tests/unit/shared/kube/test_pki.hpp"

namespace fed::kube::testing {

// The default namespace's ConfigMaps: what the watch, informer and controller tests serve.
inline const ResourceRef kConfigMaps{{"", "v1", "configmaps"}, "default", "", ""};

struct TestRequest {
  std::string method;
  std::string target;  // path?query as sent
  std::string path;
  std::string query;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string client_cert_cn;  // with TLS client authentication
  int connection = 0;          // which accepted connection carried it (1-based)

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  // The value of one query parameter, percent-decoded; "" if absent.
  std::string param(const std::string& name) const;
  bool has_param(const std::string& name) const;
};

struct TestResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // before answering
  bool drop = false;                   // close the connection without answering
  // Streaming (watch): chunked encoding, each chunk written after chunk_delay.
  bool stream = false;
  std::vector<std::string> chunks;
  std::chrono::milliseconds chunk_delay{0};
  bool hold_open = false;     // after the chunks, keep the stream open until the client leaves
  bool abort_stream = false;  // after the chunks, drop the connection without the final chunk

  static TestResponse json(int status, std::string body) {
    TestResponse r;
    r.status = status;
    r.headers.emplace_back("Content-Type", "application/json");
    r.body = std::move(body);
    return r;
  }
};

struct TlsOptions {
  std::string cert_pem, key_pem;
  std::string client_ca_pem;  // non-empty: require a client certificate signed by it
};

class LoopbackServer final {
 public:
  using Handler = std::function<TestResponse(const TestRequest&)>;

  explicit LoopbackServer(Handler handler, std::optional<TlsOptions> tls = std::nullopt);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:<port>" or "https://..."
  std::string url() const;
  std::vector<TestRequest> requests() const;
  int request_count() const;
  int connection_count() const { return connections_.load(); }
  // Closes every connection and stops accepting.
  void stop();

 private:
  void accept_loop();
  void serve(int fd, int id);

  Handler handler_;
  SSL_CTX* ctx_ = nullptr;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  mutable std::mutex mu_;
  std::vector<TestRequest> requests_;
  std::vector<int> open_fds_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// A port on 127.0.0.1 with nothing listening (bound, then closed).
int unused_port();

}  // namespace fed::kube::testing

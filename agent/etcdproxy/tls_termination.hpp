#pragma once
// TLS for the proxy's terminating mode: the proxy serves TLS to kube-apiserver (a certificate the
// etcd CA signed for the proxy's address, client certificates required and checked against the
// etcd CA, as etcd --client-cert-auth does) and opens its own mTLS session to the member with its
// own client certificate. Both sides negotiate ALPN h2 (gRPC requires it). Sockets are
// non-blocking: a record that carries no application data (a session ticket) must not park the
// connection's thread in a read.

#include <openssl/ssl.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "shared/etcd/gateway_transport.hpp"
#include "shared/raii/c_handle.hpp"
#include "shared/result/result.hpp"

namespace fed::etcdproxy {

struct ServingTls {
  std::string cert_file;       // PEM: the proxy's serving certificate (+ intermediates)
  std::string key_file;        // PEM: its key
  std::string client_ca_file;  // PEM: CAs client certificates must chain to (the etcd CA)
  bool enabled() const { return !cert_file.empty(); }
};

using SslCtx = CHandle<SSL_CTX, SSL_CTX_free>;
using Ssl = CHandle<SSL, SSL_free>;

// The two contexts of the terminating mode, loaded once at start.
struct TerminationContexts {
  SslCtx server;    // towards kube-apiserver
  SslCtx upstream;  // towards the members
};

// Loads and checks every file; Invalid names the file and OpenSSL's reason.
Result<TerminationContexts> load_termination_contexts(const ServingTls& serving,
                                                      const etcd::TlsFiles& upstream);

// One TLS session over a socket it does not own, made non-blocking.
class TlsSession final {
 public:
  enum class Io { Ok, WouldBlock, Closed };

  // Handshakes within `timeout`: as the server, or as a client verifying `peer_ip` in the
  // member's certificate.
  static Result<TlsSession> accept(SSL_CTX* ctx, int fd, std::chrono::milliseconds timeout);
  static Result<TlsSession> connect(SSL_CTX* ctx, int fd, const std::string& peer_ip,
                                    std::chrono::milliseconds timeout);

  // Appends whatever application data is readable now (Ok), nothing yet (WouldBlock), or
  // reports the end of the session.
  Io read_available(std::string& out);
  // Writes all of `data`, waiting on the socket as long as needed; false when the peer is gone.
  bool write_all(std::string_view data);
  void close_notify();

 private:
  TlsSession(Ssl ssl, int fd) : ssl_(std::move(ssl)), fd_(fd) {}
  Ssl ssl_;
  int fd_ = -1;
};

}  // namespace fed::etcdproxy

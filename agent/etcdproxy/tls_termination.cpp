#include "agent/etcdproxy/tls_termination.hpp"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <array>
#include <cerrno>

#include "shared/pki/openssl_error.hpp"

namespace fed::etcdproxy {
namespace {

constexpr unsigned char kAlpnH2[] = {2, 'h', '2'};

int select_h2(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
              unsigned int inlen, void*) {
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kAlpnH2, sizeof kAlpnH2, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;  // a client that cannot speak h2 is not an etcd client
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

Status loaded(int rc, const std::string& what, const std::string& file) {
  if (rc == 1) return ok();
  return fail(ErrorCode::Invalid, what + " " + file + ": " + pki::openssl_error());
}

Status load_pair(SSL_CTX* ctx, const std::string& cert, const std::string& key) {
  FED_TRY(loaded(SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()), "certificate", cert));
  FED_TRY(loaded(SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM), "key", key));
  return loaded(SSL_CTX_check_private_key(ctx), "key does not match its certificate:", key);
}

bool set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

// Waits until `fd` is ready for `events`, at most `timeout_ms` (-1: no limit). False on timeout.
bool wait_fd(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

Result<Ssl> handshake(SSL_CTX* ctx, int fd, bool server, const std::string& peer_ip,
                      std::chrono::milliseconds timeout) {
  if (!set_nonblocking(fd)) return fail(ErrorCode::Internal, "cannot make the socket non-blocking");
  Ssl ssl(SSL_new(ctx));
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) {
    return fail(ErrorCode::Internal, "SSL_new: " + pki::openssl_error());
  }
  if (!server) {
    if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), peer_ip.c_str()) != 1) {
      return fail(ErrorCode::Invalid, "member address " + peer_ip + " is not an IP address");
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    ERR_clear_error();
    const int r = server ? SSL_accept(ssl.get()) : SSL_connect(ssl.get());
    if (r == 1) return ssl;
    const int err = SSL_get_error(ssl.get(), r);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if ((err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) && left.count() > 0 &&
        wait_fd(fd, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                static_cast<int>(left.count()))) {
      continue;
    }
    return fail(
        ErrorCode::Unavailable,
        std::string(server ? "TLS handshake with the client" : "TLS handshake with ") +
            (server ? "" : peer_ip) + ": " +
            (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ? std::string("timed out")
                                                                       : pki::openssl_error()));
  }
}

}  // namespace

Result<TerminationContexts> load_termination_contexts(const ServingTls& serving,
                                                      const etcd::TlsFiles& upstream) {
  TerminationContexts c{SslCtx(SSL_CTX_new(TLS_server_method())),
                        SslCtx(SSL_CTX_new(TLS_client_method()))};
  if (!c.server || !c.upstream) return fail(ErrorCode::Internal, "SSL_CTX_new failed");
  SSL_CTX* s = c.server.get();
  SSL_CTX_set_min_proto_version(s, TLS1_2_VERSION);
  FED_TRY(load_pair(s, serving.cert_file, serving.key_file));
  FED_TRY(loaded(SSL_CTX_load_verify_locations(s, serving.client_ca_file.c_str(), nullptr),
                 "client CA", serving.client_ca_file));
  SSL_CTX_set_verify(s, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_alpn_select_cb(s, select_h2, nullptr);
  SSL_CTX_set_num_tickets(s, 0);  // no session tickets: nothing to read that is not data

  SSL_CTX* u = c.upstream.get();
  SSL_CTX_set_min_proto_version(u, TLS1_2_VERSION);
  FED_TRY(load_pair(u, upstream.cert_file, upstream.key_file));
  FED_TRY(loaded(SSL_CTX_load_verify_locations(u, upstream.ca_file.c_str(), nullptr), "CA",
                 upstream.ca_file));
  SSL_CTX_set_verify(u, SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_set_alpn_protos(u, kAlpnH2, sizeof kAlpnH2) != 0) {
    return fail(ErrorCode::Internal, "ALPN: " + pki::openssl_error());
  }
  return c;
}

Result<TlsSession> TlsSession::accept(SSL_CTX* ctx, int fd, std::chrono::milliseconds timeout) {
  FED_ASSIGN_OR_RETURN(auto ssl, handshake(ctx, fd, true, "", timeout));
  return TlsSession(std::move(ssl), fd);
}

Result<TlsSession> TlsSession::connect(SSL_CTX* ctx, int fd, const std::string& peer_ip,
                                       std::chrono::milliseconds timeout) {
  FED_ASSIGN_OR_RETURN(auto ssl, handshake(ctx, fd, false, peer_ip, timeout));
  return TlsSession(std::move(ssl), fd);
}

TlsSession::Io TlsSession::read_available(std::string& out) {
  std::array<char, 16 * 1024> buf{};
  bool got = false;
  for (;;) {
    ERR_clear_error();
    const int r = SSL_read(ssl_.get(), buf.data(), static_cast<int>(buf.size()));
    if (r > 0) {
      out.append(buf.data(), static_cast<std::size_t>(r));
      got = true;
      continue;  // drain what OpenSSL and the socket hold, then come back to poll
    }
    const int err = SSL_get_error(ssl_.get(), r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      return got ? Io::Ok : Io::WouldBlock;
    }
    if (err == SSL_ERROR_SYSCALL && errno == EINTR) continue;
    return got ? Io::Ok : Io::Closed;  // the end is reported by the next call
  }
}

bool TlsSession::write_all(std::string_view data) {
  while (!data.empty()) {
    ERR_clear_error();
    const int w = SSL_write(ssl_.get(), data.data(), static_cast<int>(data.size()));
    if (w > 0) {
      data.remove_prefix(static_cast<std::size_t>(w));
      continue;
    }
    const int err = SSL_get_error(ssl_.get(), w);
    if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
      if (!wait_fd(fd_, err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, 30'000)) return false;
      continue;
    }
    if (err == SSL_ERROR_SYSCALL && errno == EINTR) continue;
    return false;
  }
  return true;
}

void TlsSession::close_notify() {
  if (ssl_) (void)SSL_shutdown(ssl_.get());
}

}  // namespace fed::etcdproxy

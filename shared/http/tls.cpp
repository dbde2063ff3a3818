#include "shared/http/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "shared/http/connection.hpp"
#include "shared/pki/openssl_error.hpp"
#include "shared/raii/c_handle.hpp"

namespace fed::http {
namespace {

using SslHandle = CHandle<SSL, SSL_free>;

void free_names(STACK_OF(X509_NAME) * names) {
  sk_X509_NAME_pop_free(names, X509_NAME_free);
}
using NameList = CHandle<STACK_OF(X509_NAME), free_names>;

// OPENSSL_free is a macro; CHandle needs a function.
void free_openssl_bytes(unsigned char* p) {
  OPENSSL_free(p);
}
using OpensslBytes = CHandle<unsigned char, free_openssl_bytes>;

// Resuming a session of a context that verifies clients fails unless the context has a session
// id context; any constant will do, as each reload starts a fresh session cache.
constexpr unsigned char kSessionIdContext[] = "fed-http";

Result<std::timespec> mtime_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return fail(ErrorCode::Invalid, path + ": " + std::strerror(errno));
  }
  return st.st_mtim;
}

bool same_time(const std::timespec& a, const std::timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

Result<TlsContext::Mtimes> mtimes_of(const TlsFiles& files) {
  TlsContext::Mtimes m;
  FED_ASSIGN_OR_RETURN(m.cert, mtime_of(files.cert_file));
  FED_ASSIGN_OR_RETURN(m.key, mtime_of(files.key_file));
  if (!files.client_ca_file.empty()) {
    FED_ASSIGN_OR_RETURN(m.client_ca, mtime_of(files.client_ca_file));
  }
  return m;
}

bool same_times(const TlsContext::Mtimes& a, const TlsContext::Mtimes& b) {
  return same_time(a.cert, b.cert) && same_time(a.key, b.key) &&
         same_time(a.client_ca, b.client_ca);
}

// Makes `ctx` demand a client certificate that chains to a CA in `ca_file`, and name those CAs
// in the handshake so that clients holding several certificates pick the right one.
Status require_client_certificates(SSL_CTX* ctx, const std::string& ca_file) {
  if (SSL_CTX_load_verify_locations(ctx, ca_file.c_str(), nullptr) != 1) {
    return fail(ErrorCode::Invalid, "TLS client CA " + ca_file + ": " + pki::openssl_error() +
                                        "; give a PEM bundle of CA certificates");
  }
  NameList names(SSL_load_client_CA_file(ca_file.c_str()));
  if (!names) {
    return fail(ErrorCode::Invalid, "TLS client CA " + ca_file + ": " + pki::openssl_error() +
                                        "; give a PEM bundle of CA certificates");
  }
  SSL_CTX_set_client_CA_list(ctx, names.release());  // takes ownership
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  if (SSL_CTX_set_session_id_context(ctx, kSessionIdContext, sizeof kSessionIdContext - 1) != 1) {
    return fail(ErrorCode::Internal, "TLS session id context: " + pki::openssl_error());
  }
  return ok();
}

std::string utf8_of(const X509_NAME_ENTRY* entry) {
  unsigned char* raw = nullptr;
  const int n = ASN1_STRING_to_UTF8(&raw, X509_NAME_ENTRY_get_data(entry));
  OpensslBytes owned(raw);
  if (n < 0) {
    ERR_clear_error();
    return {};
  }
  return std::string(reinterpret_cast<const char*>(raw), static_cast<std::size_t>(n));
}

// The CN is the last one when a subject has several, as Go's crypto/x509 (and so Kubernetes'
// client certificate authenticator) reads it.
PeerIdentity identity_of(const X509_NAME* subject) {
  PeerIdentity id;
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;) {
    id.common_name = utf8_of(X509_NAME_get_entry(subject, i));
  }
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
    id.organizations.push_back(utf8_of(X509_NAME_get_entry(subject, i)));
  }
  return id;
}

Result<std::shared_ptr<ssl_ctx_st>> build_context(const TlsFiles& files) {
  std::shared_ptr<ssl_ctx_st> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return fail(ErrorCode::Internal, "TLS context: " + pki::openssl_error());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), files.cert_file.c_str()) != 1) {
    return fail(ErrorCode::Invalid, "TLS certificate " + files.cert_file + ": " +
                                        pki::openssl_error() + "; give a PEM certificate chain");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx.get(), files.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      return fail(ErrorCode::Invalid,
                  "TLS key " + files.key_file + " does not match certificate " + files.cert_file);
    }
    return fail(ErrorCode::Invalid, "TLS key " + files.key_file + ": " + pki::openssl_error() +
                                        "; give an unencrypted PEM private key");
  }
  if (SSL_CTX_check_private_key(ctx.get()) != 1) {
    return fail(ErrorCode::Invalid,
                "TLS key " + files.key_file + " does not match certificate " + files.cert_file);
  }
  if (!files.client_ca_file.empty()) {
    FED_TRY(require_client_certificates(ctx.get(), files.client_ca_file));
  }
  return ctx;
}

class TlsTransport final : public detail::Transport {
 public:
  TlsTransport(std::shared_ptr<ssl_ctx_st> ctx, int fd, int stop_fd)
      : ctx_(std::move(ctx)), ssl_(SSL_new(ctx_.get())), fd_(fd), stop_fd_(stop_fd) {
    if (ssl_) SSL_set_fd(ssl_.get(), fd);
  }

  int fd() const override { return fd_; }
  int stop_fd() const override { return stop_fd_; }

  detail::IoStatus handshake(detail::Clock::time_point deadline) override {
    if (!ssl_) return detail::IoStatus::Failed;
    return retry([this] { return SSL_accept(ssl_.get()); }, stop_fd_, deadline);
  }

  detail::IoStatus read_some(char* buf, std::size_t n, std::size_t& got,
                             detail::Clock::time_point deadline) override {
    int r = 0;
    const auto s = retry(
        [&] {
          r = SSL_read(ssl_.get(), buf, static_cast<int>(n));
          return r;
        },
        stop_fd_, deadline);
    if (s == detail::IoStatus::Ok) got = static_cast<std::size_t>(r);
    return s;
  }

  detail::IoStatus write_all(std::string_view data, detail::Clock::time_point deadline,
                             detail::OnStop on_stop) override {
    const bool abort_on_stop = on_stop == detail::OnStop::Abort;
    if (abort_on_stop && detail::readable_now(stop_fd_)) return detail::IoStatus::Stopped;
    while (!data.empty()) {
      int w = 0;
      const auto s = retry(
          [&] {
            w = SSL_write(ssl_.get(), data.data(), static_cast<int>(data.size()));
            return w;
          },
          abort_on_stop ? stop_fd_ : -1, deadline);
      if (s != detail::IoStatus::Ok) return s;
      data.remove_prefix(static_cast<std::size_t>(w));
    }
    return detail::IoStatus::Ok;
  }

  void shutdown() override {
    SSL_shutdown(ssl_.get());  // sends close_notify; the peer's reply is not awaited
    ::shutdown(fd_, SHUT_WR);
  }

  std::optional<PeerIdentity> peer() const override {
    // Without client authentication a certificate the client volunteered is unverified.
    if (!ssl_ || (SSL_get_verify_mode(ssl_.get()) & SSL_VERIFY_PEER) == 0) return std::nullopt;
    const X509* cert = SSL_get0_peer_certificate(ssl_.get());
    if (cert == nullptr || SSL_get_verify_result(ssl_.get()) != X509_V_OK) return std::nullopt;
    return identity_of(X509_get_subject_name(cert));
  }

 private:
  // Runs `op` until it succeeds, waiting on the socket for what OpenSSL asks for.
  template <typename Op>
  detail::IoStatus retry(Op op, int stop_fd, detail::Clock::time_point deadline) {
    while (true) {
      ERR_clear_error();
      const int r = op();
      if (r > 0) return detail::IoStatus::Ok;
      const int err = SSL_get_error(ssl_.get(), r);
      if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        const auto s = detail::wait_ready(fd_, err == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                                          stop_fd, deadline);
        if (s != detail::IoStatus::Ok) return s;
        continue;
      }
      if (err == SSL_ERROR_ZERO_RETURN) return detail::IoStatus::Closed;
      if (err == SSL_ERROR_SYSCALL && errno == EINTR) continue;
      spdlog::debug("TLS: {}", pki::openssl_error());
      return err == SSL_ERROR_SYSCALL ? detail::IoStatus::Closed : detail::IoStatus::Failed;
    }
  }

  std::shared_ptr<ssl_ctx_st> ctx_;
  SslHandle ssl_;
  int fd_;
  int stop_fd_;
};

}  // namespace

TlsContext::TlsContext(TlsFiles files, std::shared_ptr<ssl_ctx_st> ctx, Mtimes mtimes)
    : files_(std::move(files)), ctx_(std::move(ctx)), mtimes_(mtimes) {}

Result<std::unique_ptr<TlsContext>> TlsContext::load(TlsFiles files) {
  FED_ASSIGN_OR_RETURN(const Mtimes mtimes, mtimes_of(files));
  FED_ASSIGN_OR_RETURN(auto ctx, build_context(files));
  return std::unique_ptr<TlsContext>(new TlsContext(std::move(files), std::move(ctx), mtimes));
}

std::shared_ptr<ssl_ctx_st> TlsContext::current() {
  std::lock_guard lock(mu_);
  auto mtimes = mtimes_of(files_);
  if (mtimes && !same_times(*mtimes, mtimes_)) {
    auto fresh = build_context(files_);
    if (fresh) {
      ctx_ = std::move(fresh).value();
      spdlog::info("TLS: reloaded certificate {} and key {}{}", files_.cert_file, files_.key_file,
                   files_.client_ca_file.empty() ? "" : " and client CA " + files_.client_ca_file);
    } else {
      spdlog::warn("TLS: keeping the previous files: {}", fresh.error().message());
    }
    // Remember the times either way so that broken files are not re-read on every connection.
    mtimes_ = *mtimes;
  }
  return ctx_;
}

namespace detail {

std::unique_ptr<Transport> make_tls_transport(std::shared_ptr<ssl_ctx_st> ctx, int fd,
                                              int stop_fd) {
  return std::make_unique<TlsTransport>(std::move(ctx), fd, stop_fd);
}

}  // namespace detail
}  // namespace fed::http

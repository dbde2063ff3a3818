#include "http/tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "http/connection.hpp"
#include "pki/openssl_error.hpp"
#include "raii/c_handle.hpp"

namespace fed::http {
namespace {

using SslHandle = CHandle<SSL, SSL_free>;

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
  return ctx;
}

class TlsTransport final : public detail::Transport {
 public:
  TlsTransport(std::shared_ptr<ssl_ctx_st> ctx, int fd, int stop_fd)
      : ctx_(std::move(ctx)), ssl_(SSL_new(ctx_.get())), fd_(fd), stop_fd_(stop_fd) {
    if (ssl_) SSL_set_fd(ssl_.get(), fd);
  }

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

  detail::IoStatus write_all(std::string_view data, detail::Clock::time_point deadline) override {
    while (!data.empty()) {
      int w = 0;
      const auto s = retry(
          [&] {
            w = SSL_write(ssl_.get(), data.data(), static_cast<int>(data.size()));
            return w;
          },
          -1, deadline);
      if (s != detail::IoStatus::Ok) return s;
      data.remove_prefix(static_cast<std::size_t>(w));
    }
    return detail::IoStatus::Ok;
  }

  void shutdown() override {
    SSL_shutdown(ssl_.get());  // sends close_notify; the peer's reply is not awaited
    ::shutdown(fd_, SHUT_WR);
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

TlsContext::TlsContext(TlsFiles files, std::shared_ptr<ssl_ctx_st> ctx, std::timespec cert_mtime,
                       std::timespec key_mtime)
    : files_(std::move(files)),
      ctx_(std::move(ctx)),
      cert_mtime_(cert_mtime),
      key_mtime_(key_mtime) {}

Result<std::unique_ptr<TlsContext>> TlsContext::load(TlsFiles files) {
  FED_ASSIGN_OR_RETURN(const std::timespec cert_mtime, mtime_of(files.cert_file));
  FED_ASSIGN_OR_RETURN(const std::timespec key_mtime, mtime_of(files.key_file));
  FED_ASSIGN_OR_RETURN(auto ctx, build_context(files));
  return std::unique_ptr<TlsContext>(
      new TlsContext(std::move(files), std::move(ctx), cert_mtime, key_mtime));
}

std::shared_ptr<ssl_ctx_st> TlsContext::current() {
  std::lock_guard lock(mu_);
  auto cert_mtime = mtime_of(files_.cert_file);
  auto key_mtime = mtime_of(files_.key_file);
  if (cert_mtime && key_mtime &&
      (!same_time(*cert_mtime, cert_mtime_) || !same_time(*key_mtime, key_mtime_))) {
    auto fresh = build_context(files_);
    if (fresh) {
      ctx_ = std::move(fresh).value();
      spdlog::info("TLS: reloaded certificate {} and key {}", files_.cert_file, files_.key_file);
    } else {
      spdlog::warn("TLS: keeping the previous certificate: {}", fresh.error().message());
    }
    // Remember the times either way so a broken pair is not re-read on every connection.
    cert_mtime_ = *cert_mtime;
    key_mtime_ = *key_mtime;
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

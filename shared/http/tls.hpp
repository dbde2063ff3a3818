#pragma once
// Server-side TLS settings for http::Server: a certificate chain and key in PEM files, reloaded
// when either file changes so that rotated webhook certificates are picked up without a restart.

#include <ctime>
#include <memory>
#include <mutex>
#include <string>

#include "result/result.hpp"

struct ssl_ctx_st;

namespace fed::http {

struct TlsFiles {
  std::string cert_file;  // PEM: the server certificate followed by any intermediates
  std::string key_file;   // PEM: its private key
};

class TlsContext final {
 public:
  // Loads and checks the pair (TLS 1.2 or newer). Invalid names the file and the reason.
  static Result<std::unique_ptr<TlsContext>> load(TlsFiles files);

  // The context for a new connection, reloaded first when a file's modification time changed.
  // A failed reload keeps serving the previous pair and logs a warning.
  std::shared_ptr<ssl_ctx_st> current();

 private:
  TlsContext(TlsFiles files, std::shared_ptr<ssl_ctx_st> ctx, std::timespec cert_mtime,
             std::timespec key_mtime);

  const TlsFiles files_;
  std::mutex mu_;
  std::shared_ptr<ssl_ctx_st> ctx_;
  std::timespec cert_mtime_;
  std::timespec key_mtime_;
};

}  // namespace fed::http

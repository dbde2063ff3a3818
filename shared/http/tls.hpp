#pragma once
// Server-side TLS settings for http::Server: a certificate chain and key in PEM files, and
// optionally a CA bundle that client certificates must chain to; reloaded when any file changes
// so that rotated certificates are picked up without a restart.

#include <ctime>
#include <memory>
#include <mutex>
#include <string>

#include "shared/result/result.hpp"

struct ssl_ctx_st;

namespace fed::http {

struct TlsFiles {
  std::string cert_file;  // PEM: the server certificate followed by any intermediates
  std::string key_file;   // PEM: its private key
  // PEM: the CAs that sign client certificates. Empty: clients are not asked for one. Set: a
  // client without a certificate verified against these CAs fails the handshake, and each
  // Request carries the certificate's subject (Request::peer). Defaulted so that the existing
  // two-member initialisations {cert, key} stay warning-free.
  std::string client_ca_file{};
};

class TlsContext final {
 public:
  // Loads and checks the pair and the client CA bundle if any (TLS 1.2 or newer). Invalid
  // names the file and the reason.
  static Result<std::unique_ptr<TlsContext>> load(TlsFiles files);

  // The context for a new connection, reloaded first when a file's modification time changed.
  // A failed reload keeps serving the previous files and logs a warning.
  std::shared_ptr<ssl_ctx_st> current();

  // Modification times of the cert, key and client CA files (the last zero when unused).
  struct Mtimes {
    std::timespec cert{};
    std::timespec key{};
    std::timespec client_ca{};
  };

 private:
  TlsContext(TlsFiles files, std::shared_ptr<ssl_ctx_st> ctx, Mtimes mtimes);

  const TlsFiles files_;
  std::mutex mu_;
  std::shared_ptr<ssl_ctx_st> ctx_;
  Mtimes mtimes_;
};

}  // namespace fed::http

#include "shared/http/tls.hpp"

#include <doctest/doctest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <utime.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "shared/http/server.hpp"
#include "shared/raii/c_handle.hpp"
#include "tests/unit/shared/http/test_client.hpp"

namespace {

namespace fs = std::filesystem;
using Pkey = fed::CHandle<EVP_PKEY, EVP_PKEY_free>;
using Cert = fed::CHandle<X509, X509_free>;
using Ctx = fed::CHandle<SSL_CTX, SSL_CTX_free>;
using Ssl = fed::CHandle<SSL, SSL_free>;
using Bio = fed::CHandle<BIO, BIO_free_all>;

using fed::http::test::TempDir;

// Writes a self-signed P-256 certificate for 127.0.0.1 with common name `cn`.
void write_self_signed(const fs::path& cert_file, const fs::path& key_file, const char* cn) {
  Pkey key(EVP_EC_gen("P-256"));
  REQUIRE(key);
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn),
                             -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, cert.get(), cert.get(), nullptr, nullptr, 0);
  X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, "IP:127.0.0.1");
  REQUIRE(san != nullptr);
  X509_add_ext(cert.get(), san, -1);
  X509_EXTENSION_free(san);
  REQUIRE(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0);
  FILE* c = std::fopen(cert_file.c_str(), "w");
  PEM_write_X509(c, cert.get());
  std::fclose(c);
  FILE* k = std::fopen(key_file.c_str(), "w");
  PEM_write_PrivateKey(k, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(k);
}

struct TlsAnswer {
  std::string common_name;
  std::string http;
};

// Connects with TLS, trusting only `ca_file`, and sends a GET for `path`.
TlsAnswer tls_get(std::uint16_t port, const fs::path& ca_file, const std::string& path) {
  Ctx ctx(SSL_CTX_new(TLS_client_method()));
  REQUIRE(SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr) == 1);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  fed::Fd fd = fed::http::test::connect_loopback(port);
  REQUIRE(fd.valid());
  Ssl ssl(SSL_new(ctx.get()));
  SSL_set_fd(ssl.get(), fd.get());
  REQUIRE(X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), "127.0.0.1") == 1);
  REQUIRE(SSL_connect(ssl.get()) == 1);
  TlsAnswer out;
  Cert peer(SSL_get1_peer_certificate(ssl.get()));
  char cn[128] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(peer.get()), NID_commonName, cn, sizeof cn);
  out.common_name = cn;
  const std::string request = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  REQUIRE(SSL_write(ssl.get(), request.data(), static_cast<int>(request.size())) > 0);
  char buf[1024];
  int r = 0;
  while ((r = SSL_read(ssl.get(), buf, sizeof buf)) > 0)
    out.http.append(buf, static_cast<std::size_t>(r));
  return out;
}

}  // namespace

TEST_CASE("HTTPS: serves over TLS with the configured certificate and reloads it on change") {
  TempDir dir;
  const fs::path cert = dir.path / "tls.crt";
  const fs::path key = dir.path / "tls.key";
  write_self_signed(cert, key, "first");

  fed::http::ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.name = "webhook";
  o.tls = fed::http::TlsFiles{cert.string(), key.string()};
  auto created = fed::http::Server::create(o);
  REQUIRE(created);
  auto server = std::move(created).value();
  server->handle("/healthz",
                 [](const fed::http::Request&) { return fed::http::Response::text(200, "ok"); });
  REQUIRE(server->start());

  TlsAnswer a = tls_get(server->port(), cert, "/healthz");
  CHECK(a.common_name == "first");
  CHECK(fed::http::test::status_line(a.http) == "HTTP/1.1 200 OK");
  CHECK(fed::http::test::body_of(a.http) == "ok\n");

  // A plain-text client gets no HTTP answer from a TLS port.
  CHECK(fed::http::test::get(server->port(), "/healthz").find("200 OK") == std::string::npos);

  // Rotate: new files with a later modification time are picked up by the next connection.
  write_self_signed(cert, key, "second");
  const auto later = fs::last_write_time(cert) + std::chrono::seconds(5);
  fs::last_write_time(cert, later);
  fs::last_write_time(key, later);
  TlsAnswer b = tls_get(server->port(), cert, "/healthz");
  CHECK(b.common_name == "second");
  CHECK(fed::http::test::body_of(b.http) == "ok\n");
}

TEST_CASE("HTTPS: unreadable or mismatched files are reported at create()") {
  TempDir dir;
  fed::http::ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.tls = fed::http::TlsFiles{(dir.path / "missing.crt").string(), (dir.path / "k").string()};
  auto missing = fed::http::Server::create(o);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message().find("missing.crt: No such file or directory") !=
        std::string::npos);

  write_self_signed(dir.path / "a.crt", dir.path / "a.key", "a");
  write_self_signed(dir.path / "b.crt", dir.path / "b.key", "b");
  o.tls = fed::http::TlsFiles{(dir.path / "a.crt").string(), (dir.path / "b.key").string()};
  auto mismatched = fed::http::Server::create(o);
  REQUIRE_FALSE(mismatched);
  INFO(mismatched.error().message());
  CHECK(mismatched.error().message().find("does not match certificate") != std::string::npos);
}

TEST_CASE("HTTPS: a client hanging up in the middle of a large answer does not kill the server") {
  TempDir dir;
  const fs::path cert = dir.path / "tls.crt";
  const fs::path key = dir.path / "tls.key";
  write_self_signed(cert, key, "big");
  fed::http::ServerOptions o;
  o.bind_address = "127.0.0.1:0";
  o.tls = fed::http::TlsFiles{cert.string(), key.string()};
  auto created = fed::http::Server::create(o);
  REQUIRE(created);
  auto server = std::move(created).value();
  server->handle("/big", [](const fed::http::Request&) {
    return fed::http::Response::text(200, std::string(32 << 20, 'x'));
  });
  server->handle("/healthz",
                 [](const fed::http::Request&) { return fed::http::Response::text(200, "ok"); });
  REQUIRE(server->start());
  for (int i = 0; i < 3; ++i) {
    Ctx ctx(SSL_CTX_new(TLS_client_method()));
    fed::Fd fd = fed::http::test::connect_loopback(server->port());
    Ssl ssl(SSL_new(ctx.get()));
    SSL_set_fd(ssl.get(), fd.get());
    REQUIRE(SSL_connect(ssl.get()) == 1);
    const std::string request = "GET /big HTTP/1.1\r\n\r\n";
    REQUIRE(SSL_write(ssl.get(), request.data(), static_cast<int>(request.size())) > 0);
    char buf[4096];
    REQUIRE(SSL_read(ssl.get(), buf, sizeof buf) > 0);
    // Close with unread data: the kernel answers the server's next writes with a reset.
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Still alive and serving (without the fix SIGPIPE ends the test binary here).
  TlsAnswer a = tls_get(server->port(), cert, "/healthz");
  CHECK(fed::http::test::body_of(a.http) == "ok\n");
}

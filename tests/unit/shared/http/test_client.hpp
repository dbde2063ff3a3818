#pragma once
// A raw HTTP client for the server tests: sends exact bytes to 127.0.0.1 and returns the
// whole answer, so that malformed and oversized requests can be sent too. Also a TLS client
// that can present a client certificate, a way to issue one, and a chunked-body decoder.

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/pki/certificates.hpp"
#include "shared/raii/c_handle.hpp"
#include "shared/raii/fd.hpp"

namespace fed::http::test {

// Connects to 127.0.0.1:`port`; an invalid Fd on failure. Reads give up after 10 s, so that a
// server that never answers fails the test instead of hanging it.
inline Fd connect_loopback(std::uint16_t port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const timeval patience{10, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return Fd();
  return fd;
}

// Sends `request` and reads until the server closes.
inline std::string send_raw(std::uint16_t port, const std::string& request) {
  Fd fd = connect_loopback(port);
  if (!fd) return "connect failed";
  std::size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t w = ::send(fd.get(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (w <= 0) break;
    sent += static_cast<std::size_t>(w);
  }
  std::string out;
  char buf[4096];
  ssize_t r = 0;
  while ((r = ::recv(fd.get(), buf, sizeof buf, 0)) > 0)
    out.append(buf, static_cast<std::size_t>(r));
  return out;
}

inline std::string get(std::uint16_t port, const std::string& path) {
  return send_raw(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
}

// The status line of a raw answer: "HTTP/1.1 200 OK".
inline std::string status_line(const std::string& answer) {
  return answer.substr(0, answer.find("\r\n"));
}

// The body of a raw answer.
inline std::string body_of(const std::string& answer) {
  const auto pos = answer.find("\r\n\r\n");
  return pos == std::string::npos ? "" : answer.substr(pos + 4);
}

// Sends all of `data` on `fd` in one call (loopback takes it whole).
inline void send_all(int fd, const std::string& data) {
  REQUIRE(::send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size()));
}

// Reads from `fd` into `out` until `out` contains `needle`; false at end of stream or after the
// socket's read timeout.
inline bool read_until(int fd, std::string& out, std::string_view needle) {
  char buf[4096];
  while (out.find(needle) == std::string::npos) {
    const ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r <= 0) return false;
    out.append(buf, static_cast<std::size_t>(r));
  }
  return true;
}

// Reads from `fd` into `out` until the peer closes (or the read timeout).
inline void read_to_end(int fd, std::string& out) {
  char buf[4096];
  ssize_t r = 0;
  while ((r = ::recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<std::size_t>(r));
}

// The payload of a chunked body (no extensions, no trailers); nullopt when the framing is
// broken or the last chunk ("0\r\n\r\n") is missing, as when a stream was cut.
inline std::optional<std::string> decode_chunked(std::string_view body) {
  std::string out;
  while (true) {
    const std::size_t eol = body.find("\r\n");
    if (eol == std::string_view::npos || eol == 0) return std::nullopt;
    std::size_t size = 0;
    const auto [end, ec] = std::from_chars(body.data(), body.data() + eol, size, 16);
    if (ec != std::errc() || end != body.data() + eol) return std::nullopt;
    body.remove_prefix(eol + 2);
    if (size == 0) return body == "\r\n" ? std::optional(out) : std::nullopt;
    if (body.size() < size + 2 || body.substr(size, 2) != "\r\n") return std::nullopt;
    out.append(body.substr(0, size));
    body.remove_prefix(size + 2);
  }
}

// A fresh directory under /tmp for certificates, removed at the end of the test.
struct TempDir {
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fed-tls-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path path;
};

inline void write_file(const std::filesystem::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

using Pkey = CHandle<EVP_PKEY, EVP_PKEY_free>;
using Cert = CHandle<X509, X509_free>;
using Bio = CHandle<BIO, BIO_free_all>;

// A client certificate (extendedKeyUsage clientAuth) for CN=`common_name` and one O per entry
// of `organizations`, signed by `ca`; what the API server presents to a kubelet. Empty PEMs on
// failure.
inline pki::CertifiedKey issue_client_cert(const pki::CertifiedKey& ca,
                                           const std::string& common_name,
                                           const std::vector<std::string>& organizations) {
  Bio ca_cert_bio(BIO_new_mem_buf(ca.cert_pem.data(), static_cast<int>(ca.cert_pem.size())));
  Cert ca_cert(PEM_read_bio_X509(ca_cert_bio.get(), nullptr, nullptr, nullptr));
  Bio ca_key_bio(BIO_new_mem_buf(ca.key_pem.data(), static_cast<int>(ca.key_pem.size())));
  Pkey ca_key(PEM_read_bio_PrivateKey(ca_key_bio.get(), nullptr, nullptr, nullptr));
  Pkey key(EVP_EC_gen("P-256"));
  Cert cert(X509_new());
  if (!ca_cert || !ca_key || !key || !cert) return {};
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 7);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& org : organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  X509V3_CTX v3;
  X509V3_set_ctx(&v3, ca_cert.get(), cert.get(), nullptr, nullptr, 0);
  CHandle<X509_EXTENSION, X509_EXTENSION_free> eku(
      X509V3_EXT_conf_nid(nullptr, &v3, NID_ext_key_usage, "clientAuth"));
  if (!eku || X509_add_ext(cert.get(), eku.get(), -1) != 1) return {};
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) <= 0) return {};
  const auto pem = [](auto write) {
    Bio bio(BIO_new(BIO_s_mem()));
    write(bio.get());
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(len));
  };
  return {pem([&](BIO* b) { PEM_write_bio_X509(b, cert.get()); }), pem([&](BIO* b) {
            PEM_write_bio_PrivateKey(b, key.get(), nullptr, nullptr, 0, nullptr, nullptr);
          })};
}

struct TlsClientFiles {
  std::string ca_file;    // trusted for the server's certificate, issued for "localhost"
  std::string cert_file;  // client certificate; empty: present none
  std::string key_file;
};

struct TlsExchange {
  bool handshake_ok = false;  // as the client saw it: with TLS 1.3 the server checks the client
                              // certificate after the client's handshake has completed
  std::string answer;         // everything read until the server closed
};

// Connects with TLS to 127.0.0.1:`port` as "localhost", sends `request` and reads the answer.
inline TlsExchange tls_send(std::uint16_t port, const TlsClientFiles& files,
                            const std::string& request) {
  TlsExchange out;
  CHandle<SSL_CTX, SSL_CTX_free> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx || SSL_CTX_load_verify_locations(ctx.get(), files.ca_file.c_str(), nullptr) != 1) {
    return out;
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (!files.cert_file.empty() &&
      (SSL_CTX_use_certificate_chain_file(ctx.get(), files.cert_file.c_str()) != 1 ||
       SSL_CTX_use_PrivateKey_file(ctx.get(), files.key_file.c_str(), SSL_FILETYPE_PEM) != 1)) {
    return out;
  }
  Fd fd = connect_loopback(port);
  CHandle<SSL, SSL_free> ssl(SSL_new(ctx.get()));
  if (!fd || !ssl) return out;
  SSL_set_fd(ssl.get(), fd.get());
  SSL_set1_host(ssl.get(), "localhost");
  out.handshake_ok = SSL_connect(ssl.get()) == 1;
  if (out.handshake_ok &&
      SSL_write(ssl.get(), request.data(), static_cast<int>(request.size())) > 0) {
    char buf[4096];
    int r = 0;
    while ((r = SSL_read(ssl.get(), buf, sizeof buf)) > 0)
      out.answer.append(buf, static_cast<std::size_t>(r));
  }
  ERR_clear_error();  // a refused handshake leaves errors for the next test to trip over
  return out;
}

}  // namespace fed::http::test

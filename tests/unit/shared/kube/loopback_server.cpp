#include "tests/unit/shared/kube/loopback_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace fed::kube::testing {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string url_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else if (s[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> parse_query(const std::string& q) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start < q.size()) {
    size_t amp = q.find('&', start);
    if (amp == std::string::npos) amp = q.size();
    const std::string kv = q.substr(start, amp - start);
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      out[url_decode(kv)] = "";
    } else {
      out[url_decode(kv.substr(0, eq))] = url_decode(kv.substr(eq + 1));
    }
    start = amp + 1;
  }
  return out;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

// One accepted connection, plain or TLS.
class Conn {
 public:
  Conn(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~Conn() {
    if (ssl_ != nullptr) SSL_free(ssl_);
  }
  // Waits up to `ms` for readable data; true if some may be read.
  bool readable(int ms) const {
    if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, ms) > 0;
  }
  // > 0 bytes, 0 closed, < 0 error.
  long read(char* buf, size_t n) {
    if (ssl_ != nullptr) return SSL_read(ssl_, buf, static_cast<int>(n));
    return ::recv(fd_, buf, n, 0);
  }
  bool write(std::string_view data) {
    while (!data.empty()) {
      long n = ssl_ != nullptr ? SSL_write(ssl_, data.data(), static_cast<int>(data.size()))
                               : ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
  SSL* ssl_;
};

}  // namespace

std::string TestRequest::param(const std::string& name) const {
  auto q = parse_query(query);
  auto it = q.find(name);
  return it == q.end() ? "" : it->second;
}

bool TestRequest::has_param(const std::string& name) const {
  return parse_query(query).count(name) != 0;
}

LoopbackServer::LoopbackServer(Handler handler, std::optional<TlsOptions> tls)
    : handler_(std::move(handler)) {
  if (tls) {
    ctx_ = SSL_CTX_new(TLS_server_method());
    BIO* cb = BIO_new_mem_buf(tls->cert_pem.data(), static_cast<int>(tls->cert_pem.size()));
    X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
    BIO_free(cb);
    BIO* kb = BIO_new_mem_buf(tls->key_pem.data(), static_cast<int>(tls->key_pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
    BIO_free(kb);
    if (cert == nullptr || key == nullptr || SSL_CTX_use_certificate(ctx_, cert) != 1 ||
        SSL_CTX_use_PrivateKey(ctx_, key) != 1) {
      throw std::runtime_error("loopback server: bad TLS certificate or key");
    }
    X509_free(cert);
    EVP_PKEY_free(key);
    if (!tls->client_ca_pem.empty()) {
      BIO* ab =
          BIO_new_mem_buf(tls->client_ca_pem.data(), static_cast<int>(tls->client_ca_pem.size()));
      X509* ca = PEM_read_bio_X509(ab, nullptr, nullptr, nullptr);
      BIO_free(ab);
      X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_), ca);
      X509_free(ca);
      SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
  }
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0) {
    throw std::runtime_error(std::string("loopback server: bind/listen: ") + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

LoopbackServer::~LoopbackServer() {
  stop();
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

std::string LoopbackServer::url() const {
  return std::string(ctx_ != nullptr ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

std::vector<TestRequest> LoopbackServer::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

int LoopbackServer::request_count() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(requests_.size());
}

void LoopbackServer::stop() {
  if (stopping_.exchange(true)) return;
  ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
}

void LoopbackServer::accept_loop() {
  while (!stopping_.load()) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_.load()) return;
      continue;
    }
    const int id = ++connections_;
    std::lock_guard lock(mu_);
    open_fds_.push_back(fd);
    threads_.emplace_back([this, fd, id] { serve(fd, id); });
  }
}

void LoopbackServer::serve(int fd, int id) {
  // OpenSSL writes with write(): a client hanging up must not raise SIGPIPE in the test binary.
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, nullptr);
  SSL* ssl = nullptr;
  std::string peer_cn;
  if (ctx_ != nullptr) {
    ssl = SSL_new(ctx_);
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) != 1) {
      SSL_free(ssl);
      ssl = nullptr;
      goto done;
    }
    if (X509* peer = SSL_get1_peer_certificate(ssl)) {
      char cn[256] = {};
      X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
      peer_cn = cn;
      X509_free(peer);
    }
  }
  {
    Conn conn(fd, ssl);
    std::string buf;
    char tmp[16384];
    while (!stopping_.load()) {
      // Read one request: headers, then Content-Length bytes of body.
      size_t header_end;
      while ((header_end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (stopping_.load()) goto done;
        if (!conn.readable(50)) continue;
        const long n = conn.read(tmp, sizeof tmp);
        if (n <= 0) goto done;
        buf.append(tmp, static_cast<size_t>(n));
      }
      TestRequest req;
      req.connection = id;
      req.client_cert_cn = peer_cn;
      std::istringstream head(buf.substr(0, header_end));
      std::string line;
      std::getline(head, line);
      {
        std::istringstream rl(line);
        rl >> req.method >> req.target;
      }
      while (std::getline(head, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        req.headers[lower(line.substr(0, colon))] = value;
      }
      const auto q = req.target.find('?');
      req.path = req.target.substr(0, q);
      if (q != std::string::npos) req.query = req.target.substr(q + 1);
      const size_t body_len =
          req.headers.count("content-length") ? std::stoul(req.headers["content-length"]) : 0;
      buf.erase(0, header_end + 4);
      while (buf.size() < body_len) {
        if (stopping_.load()) goto done;
        if (!conn.readable(50)) continue;
        const long n = conn.read(tmp, sizeof tmp);
        if (n <= 0) goto done;
        buf.append(tmp, static_cast<size_t>(n));
      }
      req.body = buf.substr(0, body_len);
      buf.erase(0, body_len);
      {
        std::lock_guard lock(mu_);
        requests_.push_back(req);
      }

      TestResponse resp = handler_(req);
      for (auto waited = std::chrono::milliseconds(0); waited < resp.delay;
           waited += std::chrono::milliseconds(10)) {
        if (stopping_.load()) goto done;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (resp.drop) goto done;
      std::string out =
          "HTTP/1.1 " + std::to_string(resp.status) + " " + reason_phrase(resp.status) + "\r\n";
      for (const auto& [k, v] : resp.headers) out += k + ": " + v + "\r\n";
      if (!resp.stream) {
        out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n\r\n" + resp.body;
        if (!conn.write(out)) goto done;
        continue;
      }
      out += "Transfer-Encoding: chunked\r\n\r\n";
      if (!conn.write(out)) goto done;
      for (const auto& chunk : resp.chunks) {
        if (resp.chunk_delay.count() > 0) std::this_thread::sleep_for(resp.chunk_delay);
        std::ostringstream c;
        c << std::hex << chunk.size() << "\r\n" << chunk << "\r\n";
        if (!conn.write(c.str())) goto done;
      }
      if (resp.abort_stream) goto done;
      if (resp.hold_open) {
        // Until the client hangs up (or the server stops).
        while (!stopping_.load()) {
          if (!conn.readable(20)) continue;
          if (conn.read(tmp, sizeof tmp) <= 0) goto done;
        }
        goto done;
      }
      if (!conn.write("0\r\n\r\n")) goto done;
    }
  }
done : {
  std::lock_guard lock(mu_);
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  for (auto& f : open_fds_) {
    if (f == fd) f = -1;
  }
}
}

int unused_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace fed::kube::testing

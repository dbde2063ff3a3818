#include "shared/kube/upgrade_stream.hpp"

#include <curl/curl.h>
#include <poll.h>

#include "shared/kube/curl_tls.hpp"
#include "shared/kube/http_endpoint.hpp"
#include "shared/raii/c_handle.hpp"

namespace fed::kube {
namespace {

using Clock = std::chrono::steady_clock;

// Waits until `fd` is ready for `events` or `deadline` passes; false on timeout or error.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  if (left <= 0) return false;
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, static_cast<int>(left)) > 0;
}

// "HTTP/1.1 101 Switching Protocols" -> 101; 0 when malformed.
int status_of(std::string_view head) {
  const auto sp = head.find(' ');
  if (sp == std::string_view::npos || head.size() < sp + 4) return 0;
  int code = 0;
  for (char c : head.substr(sp + 1, 3)) {
    if (c < '0' || c > '9') return 0;
    code = code * 10 + (c - '0');
  }
  return code;
}

}  // namespace

struct UpgradeStream::Handle {
  CHandle<CURL, curl_easy_cleanup> easy;
  CHandle<curl_slist, curl_slist_free_all> connect_to;
};

UpgradeStream::~UpgradeStream() = default;

Result<std::unique_ptr<UpgradeStream>> UpgradeStream::open(const RestConfig& config,
                                                           const UpgradeRequest& request,
                                                           std::chrono::milliseconds timeout) {
  FED_ASSIGN_OR_RETURN(auto endpoint, resolve_endpoint(config));
  std::optional<ClientCertificate> cert = config.client_certificate;
  if (config.certificate_source) {
    FED_ASSIGN_OR_RETURN(cert, config.certificate_source->certificate());
  }
  std::string token;
  if (config.credentials) {
    FED_ASSIGN_OR_RETURN(token, config.credentials->token());
  }
  const auto deadline = Clock::now() + timeout;

  std::unique_ptr<UpgradeStream> s(new UpgradeStream());
  s->handle_ = std::make_unique<Handle>();
  s->handle_->easy.reset(curl_easy_init());
  CURL* h = s->handle_->easy.get();
  if (h == nullptr) return fail(ErrorCode::Internal, "curl: out of memory");
  curl_easy_setopt(h, CURLOPT_URL, (endpoint.base_url + "/").c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
  // The head written below is HTTP/1.1, and upgrades exist only there: no ALPN offer of h2.
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_SSL_ENABLE_ALPN, 0L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout.count()));
  if (!endpoint.connect_to.empty()) {
    s->handle_->connect_to.reset(curl_slist_append(nullptr, endpoint.connect_to.c_str()));
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, s->handle_->connect_to.get());
  }
  set_tls_and_auth_options(h, config, cert);
  if (const CURLcode rc = curl_easy_perform(h); rc != CURLE_OK) {
    return fail(ErrorCode::Unavailable,
                "connecting to " + endpoint.label + ": " + curl_easy_strerror(rc));
  }
  curl_socket_t sock = CURL_SOCKET_BAD;
  curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &sock);
  if (sock == CURL_SOCKET_BAD) return fail(ErrorCode::Internal, "curl gave no socket");
  s->fd_ = static_cast<int>(sock);

  // The host part of base_url: the Host header (the real server's when tls-server-name is set).
  std::string host = endpoint.base_url.substr(endpoint.base_url.find("://") + 3);
  host = host.substr(0, host.find('/'));
  std::string head = request.method + " " + request.path_and_query + " HTTP/1.1\r\n";
  head += endpoint.host_header.empty() ? "Host: " + host + "\r\n" : endpoint.host_header + "\r\n";
  head += "User-Agent: " + config.user_agent + "\r\n";
  if (!token.empty()) head += "Authorization: Bearer " + token + "\r\n";
  for (const auto& [name, value] : request.headers) head += name + ": " + value + "\r\n";
  head += "Content-Length: 0\r\n\r\n";
  if (!s->write(head,
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()))) {
    return fail(ErrorCode::Unavailable, "sending the upgrade request to " + endpoint.label);
  }

  std::string in;
  std::size_t end = std::string::npos;
  while ((end = in.find("\r\n\r\n")) == std::string::npos) {
    if (in.size() > 64 * 1024) {
      return fail(ErrorCode::Unavailable, endpoint.label + " sent an oversized response head");
    }
    const Read r = s->read_available(in);
    if (r == Read::Closed) {
      return fail(ErrorCode::Unavailable, endpoint.label + " closed before answering");
    }
    if (r == Read::Idle && !wait_for(s->fd_, POLLIN, deadline)) {
      return fail(ErrorCode::Unavailable, endpoint.label + " did not answer in time");
    }
  }
  s->head_ = in.substr(0, end + 4);
  s->leftover_ = in.substr(end + 4);
  s->status_ = status_of(s->head_);
  if (s->status_ == 0) {
    return fail(ErrorCode::Unavailable, endpoint.label + " sent a malformed response head");
  }
  return s;
}

UpgradeStream::Read UpgradeStream::read_available(std::string& out) {
  bool got = false;
  char buf[16 * 1024];
  while (true) {
    std::size_t n = 0;
    const CURLcode rc = curl_easy_recv(handle_->easy.get(), buf, sizeof buf, &n);
    if (rc == CURLE_AGAIN) return got ? Read::Data : Read::Idle;
    if (rc != CURLE_OK || n == 0) return got ? Read::Data : Read::Closed;
    out.append(buf, n);
    got = true;
  }
}

bool UpgradeStream::write(std::string_view data, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!data.empty()) {
    std::size_t n = 0;
    const CURLcode rc = curl_easy_send(handle_->easy.get(), data.data(), data.size(), &n);
    if (rc == CURLE_AGAIN) {
      if (!wait_for(fd_, POLLOUT, deadline)) return false;
      continue;
    }
    if (rc != CURLE_OK) return false;
    data.remove_prefix(n);
  }
  return true;
}

}  // namespace fed::kube

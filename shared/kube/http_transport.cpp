#include "shared/kube/http_transport.hpp"

#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>

#include <array>
#include <cctype>
#include <mutex>
#include <string>

#include "shared/kube/curl_failure.hpp"
#include "shared/kube/curl_tls.hpp"
#include "shared/kube/http_endpoint.hpp"
#include "shared/raii/c_handle.hpp"

// Connection reuse: every pooled handle is an easy handle bound to its own multi handle. The
// multi keeps the handle's connection cache between transfers (keep-alive, one HTTP/2
// connection per handle), and curl_multi_poll/curl_multi_wakeup give prompt cancellation from
// another thread (a stop_callback wakes the poll; the loop then sees stop_requested()). A
// thread takes a handle from the pool for one request and returns it, so N workers use at most
// N connections and never share a handle. DNS results and TLS sessions are shared across
// handles through a CURLSH guarded by mutexes; curl only resumes a session whose TLS config
// (CA and client certificate blobs included) matches.
//
// libcurl resends a request once by itself when a *reused* keep-alive connection closes before
// any response byte arrives (the stale-connection race), whatever the method. RestClient's own
// retries (retry_policy.hpp) apply on top; the API server does not close a connection after
// processing a request without answering it, so this does not duplicate writes in practice.
//
// tls-server-name: libcurl 7.88 has no option to verify against a name other than the URL's
// host. So the URL is built with the tls-server-name as host (SNI and certificate verification
// use it) and CURLOPT_CONNECT_TO maps that name:port to the real host:port; through a proxy the
// CONNECT goes to the real host as well. The Host header keeps the real host, as Go's client does.

namespace fed::kube {
namespace detail {

using CurlEasy = CHandle<CURL, curl_easy_cleanup>;
using CurlMulti = CHandle<CURLM, curl_multi_cleanup>;

// An easy handle and its multi, reused across requests. Named (not in the anonymous
// namespace) because HttpTransport::State holds them: see -Wsubobject-linkage.
struct Pooled {
  CurlEasy easy;
  CurlMulti multi;
};

}  // namespace detail

namespace {

using detail::CurlEasy;
using detail::CurlMulti;
using detail::Pooled;
using CurlShare = CHandle<CURLSH, curl_share_cleanup>;
using CurlSlist = CHandle<curl_slist, curl_slist_free_all>;

constexpr size_t kMaxIdleHandles = 32;
constexpr long kConnectTimeoutMs = 30'000;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return std::string(s);
}

// Per-transfer state reached from curl's callbacks.
struct Transfer {
  const HttpRequest* request = nullptr;
  CURL* easy = nullptr;
  HttpResponse response;
  bool aborted_by_handler = false;
  long status = -1;  // cached once the body starts
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new response (after a proxy CONNECT or 100 Continue): forget earlier headers.
    t->response.content_type.clear();
    t->response.retry_after.clear();
    return size * n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  const auto name = line.substr(0, colon);
  if (iequals(name, "content-type")) t->response.content_type = trim(line.substr(colon + 1));
  if (iequals(name, "retry-after")) t->response.retry_after = trim(line.substr(colon + 1));
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  if (t->status < 0) curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
  if (t->request->on_data && t->status >= 200 && t->status < 300) {
    if (!t->request->on_data(std::string_view(data, len))) {
      t->aborted_by_handler = true;
      return 0;  // CURLE_WRITE_ERROR ends the transfer
    }
    return len;
  }
  t->response.body.append(data, len);
  return len;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  return t->request->stop.stop_requested() ? 1 : 0;
}

// With CURLOPT_NOSIGNAL (required for threads) libcurl leaves SIGPIPE to the application, and
// OpenSSL writes with write(): a server closing a TLS connection would kill the process. While
// curl runs, SIGPIPE is blocked on this thread; one raised meanwhile is consumed, not delivered.
class SigpipeGuard final {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!was_pending_) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

}  // namespace

struct HttpTransport::State {
  RestConfig config;
  std::string base_url;     // scheme://host:port/prefix, host possibly the tls-server-name
  std::string connect_to;   // "name:port:realhost:port" when tls_server_name is set
  std::string host_header;  // "Host: realhost:port" when tls_server_name is set
  std::string label;        // for messages
  CurlShare share;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks;
  std::mutex pool_mu;
  std::vector<std::unique_ptr<Pooled>> idle;

  std::unique_ptr<Pooled> acquire() {
    {
      std::lock_guard lock(pool_mu);
      if (!idle.empty()) {
        auto p = std::move(idle.back());
        idle.pop_back();
        return p;
      }
    }
    auto p = std::make_unique<Pooled>();
    p->easy.reset(curl_easy_init());
    p->multi.reset(curl_multi_init());
    if (!p->easy || !p->multi) return nullptr;
    return p;
  }

  void release(std::unique_ptr<Pooled> p) {
    std::lock_guard lock(pool_mu);
    if (idle.size() < kMaxIdleHandles) idle.push_back(std::move(p));
  }
};

namespace {

void share_lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
  static_cast<std::array<std::mutex, CURL_LOCK_DATA_LAST>*>(user)->at(data).lock();
}
void share_unlock(CURL*, curl_lock_data data, void* user) {
  static_cast<std::array<std::mutex, CURL_LOCK_DATA_LAST>*>(user)->at(data).unlock();
}

}  // namespace

HttpTransport::HttpTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}
HttpTransport::~HttpTransport() {
  SigpipeGuard guard;  // closing pooled TLS connections writes close_notify
  state_.reset();
}

const std::string& HttpTransport::server_label() const {
  return state_->label;
}

Result<std::unique_ptr<HttpTransport>> HttpTransport::create(const RestConfig& config) {
  global_init();
  FED_ASSIGN_OR_RETURN(HttpEndpoint endpoint, resolve_endpoint(config));
  auto st = std::make_unique<State>();
  st->config = config;
  st->base_url = std::move(endpoint.base_url);
  st->connect_to = std::move(endpoint.connect_to);
  st->host_header = std::move(endpoint.host_header);
  st->label = std::move(endpoint.label);

  st->share.reset(curl_share_init());
  if (!st->share) return fail(ErrorCode::Internal, "curl_share_init: out of memory");
  curl_share_setopt(st->share.get(), CURLSHOPT_LOCKFUNC, share_lock);
  curl_share_setopt(st->share.get(), CURLSHOPT_UNLOCKFUNC, share_unlock);
  curl_share_setopt(st->share.get(), CURLSHOPT_USERDATA, &st->share_locks);
  curl_share_setopt(st->share.get(), CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(st->share.get(), CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(st)));
}

ApiResult<HttpResponse> HttpTransport::perform(const HttpRequest& req) {
  State& st = *state_;
  const RestConfig& cfg = st.config;

  // A certificate source (exec plugin) is asked on every request: it caches and rotates.
  std::optional<ClientCertificate> cert = cfg.client_certificate;
  if (cfg.certificate_source) {
    auto c = cfg.certificate_source->certificate();
    if (!c) return ApiError::from_error(std::move(c).error().with_context(st.label));
    cert = std::move(*c);
  }

  SigpipeGuard sigpipe_guard;
  auto pooled = st.acquire();
  if (!pooled) return ApiError::from_error(Error(ErrorCode::Internal, "curl: out of memory"));
  CURL* h = pooled->easy.get();
  curl_easy_reset(h);  // keeps the connection cache of the multi and the DNS/TLS share

  Transfer t;
  t.request = &req;
  t.easy = h;
  std::array<char, CURL_ERROR_SIZE> errbuf{};

  const std::string url = st.base_url + req.path;
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_SHARE, st.share.get());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf.data());
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 15L);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
  curl_easy_setopt(h, CURLOPT_USERAGENT, cfg.user_agent.c_str());

  const auto timeout = req.timeout.count() < 0 ? cfg.request_timeout : req.timeout;
  long connect_ms = kConnectTimeoutMs;
  if (timeout.count() > 0) {
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    connect_ms = std::min<long>(connect_ms, static_cast<long>(timeout.count()));
  }
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);

  if (req.method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else if (req.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
  if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
  }

  CurlSlist headers;
  auto append = [&](const std::string& line) {
    curl_slist* next = curl_slist_append(headers.get(), line.c_str());
    if (next != nullptr) {
      (void)headers.release();
      headers.reset(next);
    }
  };
  for (const auto& [k, v] : req.headers) append(k + ": " + v);
  append("Expect:");  // no 100-continue round trip for large bodies
  if (!st.host_header.empty()) append(st.host_header);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers.get());

  CurlSlist connect_to;
  if (!st.connect_to.empty()) {
    connect_to.reset(curl_slist_append(nullptr, st.connect_to.c_str()));
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to.get());
  }

  set_tls_and_auth_options(h, cfg, cert);

  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, &t);

  CURLM* m = pooled->multi.get();
  CURLcode code = CURLE_OK;
  if (curl_multi_add_handle(m, h) != CURLM_OK) {
    return ApiError::from_error(Error(ErrorCode::Internal, "curl_multi_add_handle failed"));
  }
  {
    // Wakes the poll below when another thread requests stop. Declared inside the block so it
    // is deregistered before the handle leaves the multi.
    std::stop_callback wake(req.stop, [m] { curl_multi_wakeup(m); });
    int running = 1;
    bool done = false;
    while (!done) {
      if (req.stop.stop_requested()) {
        code = CURLE_ABORTED_BY_CALLBACK;
        break;
      }
      if (curl_multi_perform(m, &running) != CURLM_OK) {
        code = CURLE_FAILED_INIT;
        break;
      }
      int queued = 0;
      while (CURLMsg* msg = curl_multi_info_read(m, &queued)) {
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == h) {
          code = msg->data.result;
          done = true;
        }
      }
      if (done || running == 0) break;
      curl_multi_poll(m, nullptr, 0, 1000, nullptr);
    }
  }
  curl_multi_remove_handle(m, h);

  ApiResult<HttpResponse> result = [&]() -> ApiResult<HttpResponse> {
    if (code != CURLE_OK) {
      CurlFailureFacts facts;
      facts.curl_code = code;
      curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &facts.os_errno);
      curl_off_t pretransfer = 0;
      curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
      facts.nothing_sent = pretransfer == 0;
      facts.cancelled = t.aborted_by_handler || req.stop.stop_requested();
      facts.detail = errbuf[0] != '\0' ? std::string(errbuf.data()) : curl_easy_strerror(code);
      return classify_curl_failure(facts, st.label);
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = static_cast<int>(status);
    long connects = 0;
    curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
    t.response.reused_connection = connects == 0;
    long version = 0;
    curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &version);
    t.response.http_version = version == CURL_HTTP_VERSION_2_0   ? "2"
                              : version == CURL_HTTP_VERSION_1_0 ? "1.0"
                                                                 : "1.1";
    return std::move(t.response);
  }();
  // Unhook per-request pointers before the handle goes back to the pool.
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(h, CURLOPT_CONNECT_TO, nullptr);
  st.release(std::move(pooled));
  return result;
}

}  // namespace fed::kube

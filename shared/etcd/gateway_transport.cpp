#include "shared/etcd/gateway_transport.hpp"

#include <curl/curl.h>

#include <cstring>
#include <fstream>
#include <mutex>

#include "shared/raii/c_handle.hpp"

namespace fed::etcd {
namespace {

using CurlEasy = CHandle<CURL, curl_easy_cleanup>;
using CurlSlist = CHandle<curl_slist, curl_slist_free_all>;

constexpr std::size_t kMaxIdlePerMember = 8;

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer {
  const GatewayCall* call = nullptr;
  CURL* easy = nullptr;
  std::string body;
  long status = -1;
  bool handler_stopped = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  if (t->status < 0) curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
  if (t->call->on_data && t->status == 200) {
    if (!t->call->on_data(std::string_view(data, len))) {
      t->handler_stopped = true;
      return 0;
    }
    return len;
  }
  t->body.append(data, len);
  return len;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->call->stop.stop_requested() ? 1 : 0;
}

bool readable(const std::string& path) {
  return path.empty() || std::ifstream(path).good();
}

}  // namespace

struct GatewayTransport::State {
  std::vector<std::string> endpoints;
  TlsFiles tls;
  std::chrono::milliseconds dial_timeout;
  std::mutex mu;
  std::vector<std::vector<CurlEasy>> idle;  // per member

  CurlEasy acquire(std::size_t member) {
    {
      std::lock_guard lock(mu);
      auto& pool = idle[member];
      if (!pool.empty()) {
        CurlEasy e = std::move(pool.back());
        pool.pop_back();
        return e;
      }
    }
    return CurlEasy(curl_easy_init());
  }

  void release(std::size_t member, CurlEasy e) {
    std::lock_guard lock(mu);
    if (idle[member].size() < kMaxIdlePerMember) idle[member].push_back(std::move(e));
  }
};

Result<std::unique_ptr<GatewayTransport>> GatewayTransport::create(
    std::vector<std::string> endpoints, TlsFiles tls, std::chrono::milliseconds dial_timeout) {
  global_init();
  if (endpoints.empty()) return fail(ErrorCode::Invalid, "no etcd endpoints given");
  for (auto& e : endpoints) {
    if (e.rfind("http://", 0) != 0 && e.rfind("https://", 0) != 0) {
      return fail(ErrorCode::Invalid, "etcd endpoint \"" + e +
                                          "\" must start with http:// or https:// "
                                          "(e.g. https://10.0.0.1:2379)");
    }
    while (!e.empty() && e.back() == '/') e.pop_back();
  }
  for (const auto* f : {&tls.ca_file, &tls.cert_file, &tls.key_file}) {
    if (!readable(*f)) return fail(ErrorCode::Invalid, "cannot read TLS file " + *f);
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return fail(ErrorCode::Invalid, "a client certificate needs both a cert file and a key file");
  }
  auto state = std::make_unique<State>();
  state->idle.resize(endpoints.size());
  state->endpoints = std::move(endpoints);
  state->tls = std::move(tls);
  state->dial_timeout = dial_timeout;
  return std::unique_ptr<GatewayTransport>(new GatewayTransport(std::move(state)));
}

GatewayTransport::GatewayTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}
GatewayTransport::~GatewayTransport() = default;

std::size_t GatewayTransport::size() const {
  return state_->endpoints.size();
}
const std::string& GatewayTransport::endpoint(std::size_t member) const {
  return state_->endpoints.at(member);
}

GatewayReply GatewayTransport::post(std::size_t member, const GatewayCall& call) {
  return perform(member, call, Method::Post);
}

GatewayReply GatewayTransport::get(std::size_t member, const GatewayCall& call) {
  return perform(member, call, Method::Get);
}

GatewayReply GatewayTransport::perform(std::size_t member, const GatewayCall& call, Method method) {
  GatewayReply reply;
  const auto start = std::chrono::steady_clock::now();
  CurlEasy easy = state_->acquire(member);
  if (!easy) {
    reply.failure = CallFailure::Connect;
    reply.failure_message = "curl_easy_init failed (out of memory?)";
    return reply;
  }
  CURL* e = easy.get();
  curl_easy_reset(e);  // keeps the connection cache, drops the previous call's options
  const std::string url = state_->endpoints[member] + call.path;
  CurlSlist headers(curl_slist_append(nullptr, "Content-Type: application/json"));
  // No "Expect: 100-continue": it would cost a round trip (or curl's 1 s wait) per large body.
  if (headers) curl_slist_append(headers.get(), "Expect:");  // appends in place
  Transfer t;
  t.call = &call;
  t.easy = e;
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  if (method == Method::Get) {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, call.body.c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(call.body.size()));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
  }
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(state_->dial_timeout.count()));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(call.timeout.count()));
  const auto& tls = state_->tls;
  if (!tls.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.cert_file.empty()) {
    curl_easy_setopt(e, CURLOPT_SSLCERT, tls.cert_file.c_str());
    curl_easy_setopt(e, CURLOPT_SSLKEY, tls.key_file.c_str());
  }
  const CURLcode rc = curl_easy_perform(e);
  reply.elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - start);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  if (rc == CURLE_OK) {
    reply.status = static_cast<int>(status);
    reply.body = std::move(t.body);
    state_->release(member, std::move(easy));
    return reply;
  }
  const std::string detail = errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc);
  curl_off_t pretransfer = 0;
  curl_easy_getinfo(e, CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
  if (t.handler_stopped || call.stop.stop_requested() || rc == CURLE_ABORTED_BY_CALLBACK) {
    reply.failure = CallFailure::Cancelled;
  } else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
             rc == CURLE_SSL_CONNECT_ERROR || pretransfer == 0) {
    reply.failure = CallFailure::Connect;
  } else if (rc == CURLE_OPERATION_TIMEDOUT) {
    reply.failure = CallFailure::Timeout;
  } else {
    reply.failure = CallFailure::AfterSend;
  }
  reply.status = static_cast<int>(status);
  reply.failure_message = (reply.failure == CallFailure::Connect ? "cannot connect to "
                           : method == Method::Get               ? "GET "
                                                                 : "POST ") +
                          url + ": " + detail;
  return reply;  // the handle is dropped with its broken connection
}

}  // namespace fed::etcd

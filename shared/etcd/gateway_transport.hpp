#pragma once
// POSTs to etcd members' v3 JSON gateways (and GETs /metrics) over libcurl: http or https with
// mTLS, keep-alive connections pooled per member, a time limit per call, streamed bodies for
// watch-like calls and cancellation through a stop_token. No curl type appears in this header.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::etcd {

// PEM files for https members; all empty for plain http.
struct TlsFiles {
  std::string ca_file;    // verifies the members' serving certificates
  std::string cert_file;  // client certificate (etcd --client-cert-auth)
  std::string key_file;
};

struct GatewayCall {
  std::string path;                         // "/v3/kv/range"
  std::string body;                         // JSON
  std::chrono::milliseconds timeout{5000};  // whole call; 0 = none (streams)
  // When set, a 200 body is passed here chunk by chunk; returning false ends the call.
  std::function<bool(std::string_view)> on_data;
  std::stop_token stop;
};

// How a call ended. Transport failures carry no HTTP status.
enum class CallFailure {
  None,       // an HTTP answer arrived (any status)
  Connect,    // could not connect or handshake: nothing was sent, a retry elsewhere is safe
  AfterSend,  // the connection broke after the request was (possibly) sent
  Timeout,    // the time limit passed after connecting
  Cancelled,  // stop requested or on_data returned false
};

struct GatewayReply {
  int status = 0;
  std::string body;  // empty when streamed to on_data
  CallFailure failure = CallFailure::None;
  std::string failure_message;  // "cannot connect to https://10.0.0.1:2379: connection refused"
  std::chrono::microseconds elapsed{0};
};

class GatewayTransport final {
 public:
  // `endpoints` are base URLs ("https://10.99.0.1:2379"). Invalid when one is not http(s) or a
  // TLS file is unreadable.
  static Result<std::unique_ptr<GatewayTransport>> create(std::vector<std::string> endpoints,
                                                          TlsFiles tls,
                                                          std::chrono::milliseconds dial_timeout);
  ~GatewayTransport();
  GatewayTransport(const GatewayTransport&) = delete;
  GatewayTransport& operator=(const GatewayTransport&) = delete;

  // One POST to member `member`. Thread-safe; concurrent calls use separate connections.
  GatewayReply post(std::size_t member, const GatewayCall& call);
  // One GET of call.path (body ignored), e.g. the member's Prometheus /metrics. Thread-safe.
  GatewayReply get(std::size_t member, const GatewayCall& call);

  std::size_t size() const;
  const std::string& endpoint(std::size_t member) const;

 private:
  struct State;
  enum class Method { Post, Get };
  explicit GatewayTransport(std::unique_ptr<State> state);
  GatewayReply perform(std::size_t member, const GatewayCall& call, Method method);
  std::unique_ptr<State> state_;
};

}  // namespace fed::etcd

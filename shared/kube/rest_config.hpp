#pragma once
// RestConfig: everything needed to talk to one kube-apiserver, resolved from a kubeconfig
// (kubeconfig.hpp) or from in-cluster settings. The REST client (rest_client.hpp) consumes it.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "shared/result/result.hpp"

namespace fed::kube {

// Supplies a bearer token on every request. Implementations re-read token files and
// re-run exec plugins when their cached credential expires, so rotation just works.
class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // Returns the token to send now, or an error naming the source (file path, plugin command).
  virtual Result<std::string> token() = 0;
  // Drops any cached credential; the REST client calls this after a 401 and retries once.
  virtual void invalidate() {}
};

// A client certificate and key in PEM, possibly supplied by an exec plugin.
struct ClientCertificate {
  std::string cert_pem;
  std::string key_pem;
};

// Exec plugins may return a client certificate instead of (or besides) a token.
class CertificateSource {
 public:
  virtual ~CertificateSource() = default;
  virtual Result<ClientCertificate> certificate() = 0;
};

struct RestConfig {
  std::string server;  // https://host:port[/path], no trailing slash
  std::string ca_pem;  // trusted CAs in PEM; empty = system trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // SNI / verification name override; empty = host of server
  std::string proxy_url;        // http(s):// or socks5:// proxy; empty = none
  std::optional<ClientCertificate> client_certificate;    // static cert/key
  std::shared_ptr<CertificateSource> certificate_source;  // dynamic cert (exec plugin)
  std::shared_ptr<CredentialSource> credentials;          // bearer token, if any
  std::string username, password;                         // basic auth (legacy)
  std::string default_namespace = "default";              // the context's namespace
  std::string context_name;                               // for messages
  std::string cluster_name;                               // for messages
  std::string user_agent = "kubectl-fed";
  std::chrono::milliseconds request_timeout{0};  // 0 = none (watch streams)
  double qps = 50.0;                             // client-side rate limit
  int burst = 100;
};

}  // namespace fed::kube

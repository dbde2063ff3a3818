#pragma once
// Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as kubectl runs
// them: spawned without a shell, KUBERNETES_EXEC_INFO in the environment, an ExecCredential
// read from stdout, stderr passed through to ours; the result is cached until its
// expirationTimestamp (for the process lifetime if it has none).

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "shared/kube/kubeconfig.hpp"
#include "shared/kube/rest_config.hpp"

namespace fed::kube {

inline constexpr std::string_view kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr std::string_view kExecApiV1Beta1 = "client.authentication.k8s.io/v1beta1";

// What provideClusterInfo: true hands the plugin in spec.cluster.
struct ExecClusterInfo {
  std::string server;
  std::string ca_pem;  // sent base64-encoded as certificate-authority-data
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
};

// The status of an ExecCredential a plugin printed.
struct ExecCredential {
  std::string token;              // empty if the plugin returned only a certificate
  ClientCertificate certificate;  // both empty if the plugin returned only a token
  std::optional<std::chrono::system_clock::time_point> expiry;  // none = valid forever
};

// Parses a plugin's stdout. `api_version` is the version we asked for; the plugin must
// answer in it. Errors are Invalid and say what is wrong with the output.
Result<ExecCredential> parse_exec_credential(std::string_view json, std::string_view api_version);

// The KUBERNETES_EXEC_INFO value: an ExecCredential with spec.interactive and, if the config
// asks for it, spec.cluster.
std::string exec_info_json(const ExecConfig& config, const ExecClusterInfo& cluster,
                           bool interactive);

struct ExecOptions {
  std::chrono::milliseconds timeout = std::chrono::seconds(60);
  std::function<bool()> stdin_is_terminal;  // empty = isatty(0); tests inject an answer
};

// A CredentialSource and CertificateSource backed by one exec plugin. Thread-safe: concurrent
// callers wait for a single plugin run.
class ExecCredentialSource final : public CredentialSource, public CertificateSource {
 public:
  // Checks `config` like kubectl does (command, apiVersion, interactiveMode). `user_ref`
  // names the kubeconfig user in messages, e.g. `user "dev" in /home/me/.kube/config`.
  static Result<std::shared_ptr<ExecCredentialSource>> create(ExecConfig config,
                                                              ExecClusterInfo cluster,
                                                              std::string user_ref,
                                                              ExecOptions options = {});

  // The cached credential, running the plugin first if there is none or it has expired.
  Result<ExecCredential> credential();
  // The bearer token; "" when the plugin supplies only a client certificate.
  Result<std::string> token() override;
  // The client certificate; empty PEMs when the plugin supplies only a token.
  Result<ClientCertificate> certificate() override;
  // Forgets the cached credential so the next call runs the plugin again (after a 401).
  void invalidate() override;

 private:
  ExecCredentialSource(ExecConfig config, ExecClusterInfo cluster, std::string user_ref,
                       ExecOptions options);
  Result<ExecCredential> run_plugin() const;

  const ExecConfig config_;
  const ExecClusterInfo cluster_;
  const std::string user_ref_;
  const ExecOptions options_;
  std::mutex mu_;
  std::optional<ExecCredential> cached_;  // guarded by mu_
};

}  // namespace fed::kube

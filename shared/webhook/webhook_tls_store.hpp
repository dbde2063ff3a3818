#pragma once
// Where a webhook's TLS material lives: a Secret in the serving Deployment's namespace (shared by
// every replica, so all serve certificates of the same CA), and, for the HTTPS server, the
// serving pair as PEM files it reloads when they change. The manager's pod webhook keeps it in
// kWebhookSecret; a member's tenancy webhook (agent/tenancy) in its own Secret.

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "shared/http/message.hpp"
#include "shared/http/tls.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/webhook/webhook_tls.hpp"

namespace fed::webhook {

inline constexpr std::string_view kWebhookSecret = "fed-manager-webhook-tls";
inline constexpr std::string_view kWebhookService = "fed-manager-webhook";

// Which webhook: its Secret, and the Service its serving certificate names.
struct WebhookTlsNames {
  std::string secret{kWebhookSecret};
  std::string service{kWebhookService};
  std::string what = "pod webhook";  // in log lines
};

// Who may call a webhook (docs/SECURITY.md, "Webhook callers"). Any TLS client by default:
// kube-apiserver presents no certificate to a webhook unless its admission configuration names
// a kubeconfig that gives it one, which managed clusters do not let users set. FrontProxy, where
// the cluster's administrator made it present its front-proxy client certificate: a caller
// without a certificate of the front-proxy CA fails the TLS handshake, and one whose common name
// is not among requestheader-allowed-names is answered 403.
enum class WebhookCallers { Any, FrontProxy };

class WebhookTlsStore final {
 public:
  // The material in Secret `ns`/names.secret; files under `dir` (created, mode 0700).
  WebhookTlsStore(std::shared_ptr<kube::DynamicClient> client, std::string ns,
                  std::filesystem::path dir, WebhookTlsNames names = {},
                  WebhookCallers callers = WebhookCallers::Any);

  // Reads the Secret, renews what is due (webhook_tls.hpp) and writes it back when it changed —
  // conditional on the version read, so two replicas renewing at once do not both win: the
  // loser gets Conflict and reads the winner's next time. Then writes the serving pair to the
  // files when they differ. With WebhookCallers::FrontProxy, also writes the front-proxy CA
  // kube-apiserver publishes (kube/apiserver_authentication.hpp) and takes its allowed names:
  // Unavailable while it publishes none. Returns what is in force.
  Result<WebhookTls> sync(std::chrono::system_clock::time_point now);

  // The serving pair, and the callers' CA with WebhookCallers::FrontProxy.
  http::TlsFiles files() const;

  // `handler` behind the caller check: a request from a caller the store does not admit gets
  // 403 and never reaches it.
  http::Handler admitting(http::Handler handler) const;

 private:
  Status write_files(const WebhookTls& tls);
  Status sync_callers();
  bool admits(const http::Request& request) const;

  std::shared_ptr<kube::DynamicClient> client_;
  std::string ns_;
  std::filesystem::path dir_;
  WebhookTlsNames names_;
  WebhookCallers callers_;
  mutable std::mutex mu_;
  std::vector<std::string> caller_names_;  // empty: any the front-proxy CA signed
};

}  // namespace fed::webhook

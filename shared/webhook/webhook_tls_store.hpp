#pragma once
// Where a webhook's TLS material lives: a Secret in the serving Deployment's namespace (shared by
// every replica, so all serve certificates of the same CA), and, for the HTTPS server, the
// serving pair as PEM files it reloads when they change. The manager's pod webhook keeps it in
// kWebhookSecret; a member's tenancy webhook (agent/tenancy) in its own Secret.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

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

class WebhookTlsStore final {
 public:
  // The material in Secret `ns`/names.secret; files under `dir` (created, mode 0700).
  WebhookTlsStore(std::shared_ptr<kube::DynamicClient> client, std::string ns,
                  std::filesystem::path dir, WebhookTlsNames names = {});

  // Reads the Secret, renews what is due (webhook_tls.hpp) and writes it back when it changed —
  // conditional on the version read, so two replicas renewing at once do not both win: the
  // loser gets Conflict and reads the winner's next time. Then writes the serving pair to the
  // files when they differ. Returns what is in force.
  Result<WebhookTls> sync(std::chrono::system_clock::time_point now);

  http::TlsFiles files() const;

 private:
  Status write_files(const WebhookTls& tls);

  std::shared_ptr<kube::DynamicClient> client_;
  std::string ns_;
  std::filesystem::path dir_;
  WebhookTlsNames names_;
};

}  // namespace fed::webhook

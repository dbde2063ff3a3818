#pragma once
// Where the pod webhook's TLS material lives: the Secret kWebhookSecret in the manager's
// namespace (shared by every manager replica, so all serve certificates of the same CA), and,
// for the HTTPS server, the serving pair as PEM files it reloads when they change.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "http/tls.hpp"
#include "kube/dynamic_client.hpp"
#include "offload/webhook_tls.hpp"

namespace fed::offload {

inline constexpr std::string_view kWebhookSecret = "fed-manager-webhook-tls";
inline constexpr std::string_view kWebhookService = "fed-manager-webhook";

class WebhookTlsStore final {
 public:
  // The material in Secret `ns`/kWebhookSecret; files under `dir` (created, mode 0700).
  WebhookTlsStore(std::shared_ptr<kube::DynamicClient> client, std::string ns,
                  std::filesystem::path dir);

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
};

}  // namespace fed::offload

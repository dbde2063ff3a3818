#pragma once
// What a role that serves one admission webhook keeps running beside its server: the TLS pair
// (WebhookTlsStore, its files written before the server starts) and the webhook
// configuration's CA bundle (WebhookConfigReconciler, rechecked every kWebhookRecheck). Used by
// the tenancy and PodPreset roles; the manager wires its pod webhook itself, as its
// configuration also follows the offloaded namespaces.

#include <filesystem>
#include <memory>
#include <string>

#include "shared/http/server.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/webhook/webhook_config_reconciler.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::webhook {

class WebhookWiring final {
 public:
  // Syncs the TLS material of `names` in namespace `ns` (files under `cert_dir`; empty: a
  // directory of this process under the temporary directory), for `callers`, and starts the
  // controller `controller_name` that keeps `target` carrying its CA bundle.
  static Result<std::unique_ptr<WebhookWiring>> start(
      std::shared_ptr<kube::DynamicClient> client, const std::string& ns,
      std::filesystem::path cert_dir, WebhookTlsNames names, WebhookConfigTarget target,
      const std::string& controller_name, WebhookCallers callers);
  WebhookWiring(const WebhookWiring&) = delete;
  WebhookWiring& operator=(const WebhookWiring&) = delete;
  ~WebhookWiring() { stop(); }

  // The serving pair and the caller check, for the webhook's server.
  const WebhookTlsStore& tls() const { return *tls_; }
  void stop();

 private:
  WebhookWiring() = default;
  std::unique_ptr<WebhookTlsStore> tls_;
  std::unique_ptr<WebhookConfigReconciler> reconciler_;
  std::unique_ptr<kube::Controller> controller_;
};

}  // namespace fed::webhook

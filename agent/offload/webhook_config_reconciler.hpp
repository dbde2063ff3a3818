#pragma once
// Keeps the pod webhook wired: the TLS material renewed (WebhookTlsStore) and the
// MutatingWebhookConfiguration carrying its CA bundle and the offloaded namespaces
// (webhook_configuration.hpp). One key; reconciled when a NamespaceOffloading changes and every
// kWebhookRecheck — for the certificates, and because `kubectl fed init` run again re-applies the
// configuration as installed (matching no namespace), which this undoes within kWebhookRecheck.

#include <chrono>
#include <memory>

#include "kube/dynamic_client.hpp"
#include "kube/informer.hpp"
#include "kube/reconciler.hpp"
#include "offload/webhook_tls_store.hpp"

namespace fed::offload {

inline constexpr std::chrono::seconds kWebhookRecheck{30};

class WebhookConfigReconciler final : public kube::Reconciler {
 public:
  WebhookConfigReconciler(std::shared_ptr<kube::DynamicClient> host, WebhookTlsStore& store,
                          kube::Informer& offloadings);

  // The one request this reconciler serves.
  static kube::Request request() { return {"", std::string(kWebhookSecret)}; }
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  std::shared_ptr<kube::DynamicClient> host_;
  WebhookTlsStore& store_;
  kube::Informer& offloadings_;
  bool warned_missing_ = false;
};

}  // namespace fed::offload

#pragma once
// Keeps a webhook wired: its TLS material renewed (WebhookTlsStore) and its webhook
// configuration (installed by the plugin without a caBundle) edited to carry the CA bundle —
// and whatever else the webhook keeps there. One key; reconciled on demand and every `recheck`:
// for the certificates, and because the plugin run again re-applies the configuration as
// installed, which this undoes within `recheck`. Used by the manager's pod webhook
// (MutatingWebhookConfiguration kubectl-fed-pods, its namespaceSelector naming the offloaded
// namespaces: webhook_configuration.hpp) and a member's tenancy webhook (agent/tenancy).

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/reconciler.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::webhook {

inline constexpr std::chrono::seconds kWebhookRecheck{30};

// `current` (a webhook configuration) with every webhook's clientConfig.caBundle =
// base64(`ca_bundle_pem`): the edit of a webhook that keeps nothing else there.
nlohmann::json with_ca_bundle(const nlohmann::json& current, const std::string& ca_bundle_pem);

struct WebhookConfigTarget {
  kube::GroupVersionResource gvr;  // mutating- or validatingwebhookconfigurations
  std::string name;
  std::string what;          // in log lines: "pod webhook"
  std::string when_missing;  // the warning's consequence: "pods ... get no placement rules"
  // `current` as it must be with `ca_bundle_pem` in force.
  std::function<nlohmann::json(const nlohmann::json& current, const std::string& ca_bundle_pem)>
      edit;
};

class WebhookConfigReconciler final : public kube::Reconciler {
 public:
  WebhookConfigReconciler(std::shared_ptr<kube::DynamicClient> client, WebhookTlsStore& store,
                          WebhookConfigTarget target);

  // The one request this reconciler serves.
  static kube::Request request() { return {"", "webhook"}; }
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  std::shared_ptr<kube::DynamicClient> client_;
  WebhookTlsStore& store_;
  const WebhookConfigTarget target_;
  bool warned_missing_ = false;
};

}  // namespace fed::webhook

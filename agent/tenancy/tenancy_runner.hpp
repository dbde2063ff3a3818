#pragma once
// `fed-agent tenancy`: the provider side of multi-tenancy on a member (docs/OFFLOAD.md,
// tenancy) — a Deployment `kubectl fed join` installs with the member admin's rights. It caps
// each consumer's replica namespaces (namespace_cap_webhook.hpp) and keeps the provider's
// ResourceQuota, LimitRange and NetworkPolicy in each replica (tenant_objects_reconciler.hpp).
// The federation identity has no right on any of this.

#include <atomic>
#include <memory>
#include <string>

#include "kube/controller.hpp"
#include "kube/informer.hpp"
#include "offload/webhook_wiring.hpp"
#include "roles/role_runner.hpp"
#include "tenancy/namespace_cap_webhook.hpp"
#include "tenancy/tenant_objects_reconciler.hpp"
#include "tenancy/tenant_policy.hpp"

namespace fed::tenancy {

struct TenancyOptions {
  std::string bind_address{kDefaultTenancyBindAddress};  // the webhook (HTTPS)
  std::string cert_dir;  // its serving pair; empty: a directory under the temporary directory
  std::string namespace_name = "kubectl-fed-system";  // where its Secret and Service are
  TenantPolicy policy;
};

class TenancyRunner final : public agent::RoleRunner {
 public:
  explicit TenancyRunner(TenancyOptions options) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::Tenancy; }
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override { return ready_.load(); }
  void stop() override;

 private:
  // The namespace cap: TLS material, the webhook configuration's CA bundle, the server.
  Status start_webhook();

  TenancyOptions options_;
  std::shared_ptr<kube::DynamicClient> client_;
  std::unique_ptr<kube::Informer> replicas_;
  std::unique_ptr<TenantObjectsReconciler> objects_;
  std::unique_ptr<kube::Controller> objects_controller_;
  std::unique_ptr<offload::WebhookWiring> wiring_;
  std::unique_ptr<NamespaceCapWebhook> webhook_;
  std::atomic<bool> ready_{false};
};

}  // namespace fed::tenancy

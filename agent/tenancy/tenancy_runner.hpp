#pragma once
// `fed-agent tenancy`: the provider side of multi-tenancy on a member (docs/OFFLOAD.md,
// tenancy) — a Deployment `kubectl fed join` installs with the member admin's rights. It caps
// each consumer's replica namespaces (namespace_cap_webhook.hpp) and keeps the provider's
// ResourceQuota, LimitRange and NetworkPolicy in each replica (tenant_objects_reconciler.hpp).
// The federation identity has no right on any of this.

#include <atomic>
#include <memory>
#include <string>

#include "agent/roles/role_runner.hpp"
#include "agent/tenancy/namespace_cap_webhook.hpp"
#include "agent/tenancy/tenant_objects_reconciler.hpp"
#include "agent/tenancy/tenant_policy.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/webhook/webhook_wiring.hpp"

namespace fed::tenancy {

struct TenancyOptions {
  std::string bind_address{kDefaultTenancyBindAddress};  // the webhook (HTTPS)
  std::string cert_dir;  // its serving pair; empty: a directory under the temporary directory
  webhook::WebhookCallers callers = webhook::WebhookCallers::Any;  // --webhook-caller-auth
  std::string namespace_name{fedapi::kNamespace};  // where its Secret and Service are
  TenantPolicy policy;
};

class TenancyRunner final : public agent::RoleRunner {
 public:
  explicit TenancyRunner(TenancyOptions options) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::Tenancy; }
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override { return manager_ && manager_->healthy(); }
  void stop() override;

 private:
  // The namespace cap: TLS material, the webhook configuration's CA bundle, the server.
  Status start_webhook(kube::Informer& replicas);
  void stop_webhook();

  TenancyOptions options_;
  // First, so destroyed last: the webhook reads the manager's replicas cache.
  std::unique_ptr<kube::ControllerManager> manager_;
  std::unique_ptr<webhook::WebhookWiring> wiring_;
  std::unique_ptr<NamespaceCapWebhook> webhook_;
};

}  // namespace fed::tenancy

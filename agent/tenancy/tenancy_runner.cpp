#include "agent/tenancy/tenancy_runner.hpp"

#include <spdlog/spdlog.h>

#include "agent/roles/api_config.hpp"

namespace fed::tenancy {

Status TenancyRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-tenancy"));
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(config)));
  manager_ = std::make_unique<kube::ControllerManager>(client);

  kube::InformerOptions replica_options;
  replica_options.label_selector = std::string(kConsumerLabel);
  kube::Informer& replicas = manager_->informer(
      kube::ResourceRef{{"", "v1", "namespaces"}, "", "", ""}, std::move(replica_options));
  auto& objects =
      manager_->own(std::make_unique<TenantObjectsReconciler>(client, replicas, options_.policy));
  manager_->add_controller(objects, "tenant-objects", 2).watch(replicas);
  // Serves only once the replicas are cached (the objects controller, started first, waited for
  // that), so the first count is not zero by mistake.
  if (options_.policy.namespace_quota > 0) {
    manager_->add_runnable(
        "tenancy webhook", [this, &replicas] { return start_webhook(replicas); },
        [this] { stop_webhook(); });
  }
  FED_TRY(manager_->start());
  spdlog::info(
      "tenancy: {} replica namespace(s) cached; namespace cap {}, ResourceQuota {}, LimitRange "
      "{}, NetworkPolicy {}",
      replicas.store().list().size(), options_.policy.namespace_quota,
      options_.policy.quota.empty() ? "none" : "kept",
      options_.policy.default_request.empty() ? "none" : "kept",
      options_.policy.local_pod_cidr.empty() ? "none" : "kept");
  return ok();
}

Status TenancyRunner::start_webhook(kube::Informer& replicas) {
  FED_ASSIGN_OR_RETURN(
      wiring_, webhook::WebhookWiring::start(
                   manager_->client(), options_.namespace_name, options_.cert_dir,
                   webhook::WebhookTlsNames{std::string(kTenancyWebhookSecret),
                                            std::string(kTenancyWebhookService), "tenancy webhook"},
                   webhook::WebhookConfigTarget{
                       {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"},
                       std::string(kTenancyWebhookConfiguration),
                       "tenancy webhook",
                       "the namespace cap is not enforced",
                       webhook::with_ca_bundle},
                   "tenancy-webhook", options_.callers));
  FED_ASSIGN_OR_RETURN(webhook_,
                       NamespaceCapWebhook::start(options_.bind_address, wiring_->tls(), replicas,
                                                  options_.policy.namespace_quota));
  return ok();
}

void TenancyRunner::stop_webhook() {
  if (webhook_) webhook_->stop();
  if (wiring_) wiring_->stop();
}

void TenancyRunner::stop() {
  if (manager_) manager_->stop();
}

}  // namespace fed::tenancy

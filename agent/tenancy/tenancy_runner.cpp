#include "tenancy/tenancy_runner.hpp"

#include <spdlog/spdlog.h>

#include "offload/webhook_configuration.hpp"
#include "roles/api_config.hpp"

namespace fed::tenancy {

Status TenancyRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-tenancy"));
  FED_ASSIGN_OR_RETURN(client_, kube::DynamicClient::create(std::move(config)));

  kube::InformerOptions replica_options;
  replica_options.label_selector = std::string(kConsumerLabel);
  replicas_ = std::make_unique<kube::Informer>(
      client_, kube::ResourceRef{{"", "v1", "namespaces"}, "", "", ""}, std::move(replica_options));
  objects_ = std::make_unique<TenantObjectsReconciler>(client_, *replicas_, options_.policy);
  objects_controller_ = kube::make_controller(*objects_, "tenant-objects", 2);
  objects_controller_->watch(*replicas_);

  replicas_->start();
  FED_TRY(objects_controller_->start());  // waits for the replicas' cache
  if (options_.policy.namespace_quota > 0) FED_TRY(start_webhook());
  spdlog::info(
      "tenancy: {} replica namespace(s) cached; namespace cap {}, ResourceQuota {}, LimitRange "
      "{}, NetworkPolicy {}",
      replicas_->store().list().size(), options_.policy.namespace_quota,
      options_.policy.quota.empty() ? "none" : "kept",
      options_.policy.default_request.empty() ? "none" : "kept",
      options_.policy.local_pod_cidr.empty() ? "none" : "kept");
  ready_ = true;
  return ok();
}

Status TenancyRunner::start_webhook() {
  FED_ASSIGN_OR_RETURN(
      wiring_, offload::WebhookWiring::start(
                   client_, options_.namespace_name, options_.cert_dir,
                   offload::WebhookTlsNames{std::string(kTenancyWebhookSecret),
                                            std::string(kTenancyWebhookService), "tenancy webhook"},
                   offload::WebhookConfigTarget{
                       {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"},
                       std::string(kTenancyWebhookConfiguration),
                       "tenancy webhook",
                       "the namespace cap is not enforced",
                       offload::with_ca_bundle},
                   "tenancy-webhook"));
  // Serves only once the replicas are cached (the objects controller waited for that), so the
  // first count is not zero by mistake.
  FED_ASSIGN_OR_RETURN(
      webhook_, NamespaceCapWebhook::start(options_.bind_address, wiring_->files(), *replicas_,
                                           options_.policy.namespace_quota));
  return ok();
}

void TenancyRunner::stop() {
  ready_ = false;
  if (webhook_) webhook_->stop();
  if (wiring_) wiring_->stop();
  if (objects_controller_) objects_controller_->stop();
  if (replicas_) replicas_->stop();
}

}  // namespace fed::tenancy

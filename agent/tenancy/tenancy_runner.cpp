#include "tenancy/tenancy_runner.hpp"

#include <unistd.h>

#include <filesystem>

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
  std::filesystem::path dir = options_.cert_dir;
  if (dir.empty()) {
    dir = std::filesystem::temp_directory_path() /
          ("kubectl-fed-tenancy-" + std::to_string(::getpid()));
  }
  tls_ = std::make_unique<offload::WebhookTlsStore>(
      client_, options_.namespace_name, std::move(dir),
      offload::WebhookTlsNames{std::string(kTenancyWebhookSecret),
                               std::string(kTenancyWebhookService), "tenancy webhook"});
  // The server checks its certificate files when it is created: they must exist first.
  FED_TRY(tls_->sync(std::chrono::system_clock::now()));
  webhook_reconciler_ = std::make_unique<offload::WebhookConfigReconciler>(
      client_, *tls_,
      offload::WebhookConfigTarget{
          {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"},
          std::string(kTenancyWebhookConfiguration),
          "tenancy webhook",
          "the namespace cap is not enforced",
          offload::with_ca_bundle});
  webhook_controller_ = kube::make_controller(*webhook_reconciler_, "tenancy-webhook", 1);
  FED_TRY(webhook_controller_->start());
  webhook_controller_->queue().add(offload::WebhookConfigReconciler::request());
  // Serves only once the replicas are cached (the objects controller waited for that), so the
  // first count is not zero by mistake.
  FED_ASSIGN_OR_RETURN(webhook_,
                       NamespaceCapWebhook::start(options_.bind_address, tls_->files(), *replicas_,
                                                  options_.policy.namespace_quota));
  return ok();
}

void TenancyRunner::stop() {
  ready_ = false;
  if (webhook_) webhook_->stop();
  if (webhook_controller_) webhook_controller_->stop();
  if (objects_controller_) objects_controller_->stop();
  if (replicas_) replicas_->stop();
}

}  // namespace fed::tenancy

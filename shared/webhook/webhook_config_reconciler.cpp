#include "shared/webhook/webhook_config_reconciler.hpp"

#include <spdlog/spdlog.h>

#include "shared/util/base64.hpp"

namespace fed::webhook {

nlohmann::json with_ca_bundle(const nlohmann::json& current, const std::string& ca_bundle_pem) {
  nlohmann::json updated = current;
  const std::string bundle = util::base64_encode(ca_bundle_pem);
  for (auto& webhook : updated["webhooks"]) webhook["clientConfig"]["caBundle"] = bundle;
  return updated;
}

WebhookConfigReconciler::WebhookConfigReconciler(std::shared_ptr<kube::DynamicClient> client,
                                                 WebhookTlsStore& store, WebhookConfigTarget target)
    : client_(std::move(client)), store_(store), target_(std::move(target)) {}

Result<kube::Requeue> WebhookConfigReconciler::reconcile(const kube::Request&) {
  FED_ASSIGN_OR_RETURN(auto tls, store_.sync(std::chrono::system_clock::now()));
  const kube::ResourceRef ref{target_.gvr, "", target_.name, ""};
  auto current = client_->get(ref);
  if (!current) {
    if (!current.error().is_not_found()) return current.error().to_error();
    if (!warned_missing_) {
      spdlog::warn("{}: {} {} is missing (kubectl-fed installs it); {} until it exists",
                   target_.what, target_.gvr.resource, target_.name, target_.when_missing);
      warned_missing_ = true;
    }
    return kube::Requeue{std::chrono::seconds(10)};
  }
  warned_missing_ = false;
  auto updated = target_.edit(*current, tls.ca_bundle);
  if (updated != *current) {
    auto written = client_->update(ref, updated);
    if (!written) {
      return written.error().to_error().with_context(target_.gvr.resource + " " + target_.name);
    }
    spdlog::info("{}: {} {} updated", target_.what, target_.gvr.resource, target_.name);
  }
  return kube::Requeue{kWebhookRecheck};
}

}  // namespace fed::webhook

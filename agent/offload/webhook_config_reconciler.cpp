#include "offload/webhook_config_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "offload/webhook_configuration.hpp"

namespace fed::offload {
namespace {

const kube::ResourceRef kConfigurations{
    {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"}, "", "", ""};

}  // namespace

WebhookConfigReconciler::WebhookConfigReconciler(std::shared_ptr<kube::DynamicClient> host,
                                                 WebhookTlsStore& store,
                                                 kube::Informer& offloadings)
    : host_(std::move(host)), store_(store), offloadings_(offloadings) {}

Result<kube::Requeue> WebhookConfigReconciler::reconcile(const kube::Request&) {
  FED_ASSIGN_OR_RETURN(auto tls, store_.sync(std::chrono::system_clock::now()));
  std::set<std::string> offloaded;
  for (const auto& o : offloadings_.store().list()) {
    if (!(*o)["metadata"].contains("deletionTimestamp")) {
      offloaded.insert((*o)["metadata"].value("namespace", ""));
    }
  }
  const auto ref = kConfigurations.named(std::string(kWebhookConfiguration));
  auto current = host_->get(ref);
  if (!current) {
    if (!current.error().is_not_found()) return current.error().to_error();
    if (!warned_missing_) {
      spdlog::warn(
          "pod webhook: MutatingWebhookConfiguration {} is missing (kubectl fed init installs "
          "it); pods of offloaded namespaces get no placement rules until it exists",
          kWebhookConfiguration);
      warned_missing_ = true;
    }
    return kube::Requeue{std::chrono::minutes(1)};
  }
  warned_missing_ = false;
  auto updated = webhook_configuration(*current, tls.ca_bundle, offloaded);
  if (updated != *current) {
    auto written = host_->update(ref, updated);
    if (!written) {
      return written.error().to_error().with_context("MutatingWebhookConfiguration " +
                                                     std::string(kWebhookConfiguration));
    }
    spdlog::info("pod webhook: {} now sends pods of {} offloaded namespace(s)",
                 kWebhookConfiguration, offloaded.size());
  }
  return kube::Requeue{kWebhookRecheck};
}

}  // namespace fed::offload

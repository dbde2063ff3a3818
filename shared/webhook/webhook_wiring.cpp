#include "shared/webhook/webhook_wiring.hpp"

#include <unistd.h>

namespace fed::webhook {

Result<std::unique_ptr<WebhookWiring>> WebhookWiring::start(
    std::shared_ptr<kube::DynamicClient> client, const std::string& ns,
    std::filesystem::path cert_dir, WebhookTlsNames names, WebhookConfigTarget target,
    const std::string& controller_name, WebhookCallers callers) {
  if (cert_dir.empty()) {
    cert_dir = std::filesystem::temp_directory_path() /
               ("kubectl-fed-" + controller_name + "-" + std::to_string(::getpid()));
  }
  std::unique_ptr<WebhookWiring> wiring(new WebhookWiring());
  wiring->tls_ =
      std::make_unique<WebhookTlsStore>(client, ns, std::move(cert_dir), std::move(names), callers);
  // The server checks its certificate files when it is created: they must exist first.
  FED_TRY(wiring->tls_->sync(std::chrono::system_clock::now()));
  wiring->reconciler_ = std::make_unique<WebhookConfigReconciler>(std::move(client), *wiring->tls_,
                                                                  std::move(target));
  wiring->controller_ = kube::make_controller(*wiring->reconciler_, controller_name, 1);
  FED_TRY(wiring->controller_->start());
  wiring->controller_->queue().add(WebhookConfigReconciler::request());
  return wiring;
}

void WebhookWiring::stop() {
  if (controller_) controller_->stop();
}

}  // namespace fed::webhook

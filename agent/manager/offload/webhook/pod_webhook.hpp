#pragma once
// The mutating pod webhook (spec 001 §2.4.5), served by every manager replica over HTTPS:
// POST kWebhookPath answers an AdmissionReview for a pod CREATE with pod_admission's answer,
// from the NamespaceOffloading of the pod's namespace in the manager's informer (no API call
// per pod). The MutatingWebhookConfiguration kWebhookConfiguration sends it only pods of
// offloaded namespaces (webhook_configuration.hpp); failurePolicy Fail there, so a pod of an
// offloaded namespace is not admitted without its strategy's rules (docs/OFFLOAD.md).

#include <memory>
#include <string>

#include "shared/http/server.hpp"
#include "shared/kube/informer.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::offload {

inline constexpr std::string_view kWebhookPath = "/mutate-pods";
inline constexpr std::string_view kDefaultWebhookBindAddress = "0.0.0.0:9443";

class PodWebhook final {
 public:
  // Listens on `bind_address` with the pair in `tls`, answering the callers it admits from
  // `offloadings`.
  static Result<std::unique_ptr<PodWebhook>> start(const std::string& bind_address,
                                                   const webhook::WebhookTlsStore& tls,
                                                   kube::Informer& offloadings);
  void stop();
  const std::string& local_address() const { return server_->local_address(); }

 private:
  PodWebhook(std::unique_ptr<http::Server> server) : server_(std::move(server)) {}
  std::unique_ptr<http::Server> server_;
};

}  // namespace fed::offload

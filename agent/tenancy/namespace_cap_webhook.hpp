#pragma once
// The tenancy webhook's server (HTTPS, POST kNamespaceCapPath): answers each Namespace CREATE of
// the federation identity with namespace_admission's decision, counting the consumer's replicas
// in an informer's cache (no API call per request). Decisions are serialised and a namespace
// just admitted counts until the cache shows it (or kAdmittedGrace passes: another validator
// refused it), so concurrent creates cannot overshoot the cap.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "agent/tenancy/namespace_admission.hpp"
#include "shared/http/server.hpp"
#include "shared/kube/informer.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::tenancy {

inline constexpr std::string_view kNamespaceCapPath = "/validate-namespaces";
inline constexpr std::string_view kDefaultTenancyBindAddress = "0.0.0.0:9443";
inline constexpr std::chrono::seconds kAdmittedGrace{30};
// Its TLS material, its Service and its ValidatingWebhookConfiguration (manifests/tenancy/).
inline constexpr std::string_view kTenancyWebhookSecret = "fed-tenancy-webhook-tls";
inline constexpr std::string_view kTenancyWebhookService = "fed-tenancy-webhook";
inline constexpr std::string_view kTenancyWebhookConfiguration = "kubectl-fed-tenant-namespaces";

class NamespaceCapWebhook final {
 public:
  // Listens on `bind_address` with the pair in `tls`, answering the callers it admits; counts
  // replicas in `replicas` (an
  // informer on namespaces labelled kubectl-fed.io/origin-cluster), caps at `namespace_quota`.
  static Result<std::unique_ptr<NamespaceCapWebhook>> start(const std::string& bind_address,
                                                            const webhook::WebhookTlsStore& tls,
                                                            kube::Informer& replicas,
                                                            int namespace_quota);
  void stop() { server_->stop(); }
  const std::string& local_address() const { return server_->local_address(); }

 private:
  NamespaceCapWebhook(kube::Informer& replicas, int namespace_quota)
      : replicas_(replicas), namespace_quota_(namespace_quota) {}
  http::Response review(const http::Request& request);
  // Replicas of `consumer`: cached and not terminating, plus admitted ones not cached yet.
  int held_by(const std::string& consumer, std::chrono::steady_clock::time_point now);

  kube::Informer& replicas_;
  const int namespace_quota_;
  std::unique_ptr<http::Server> server_;
  std::mutex mu_;
  struct Admitted {
    std::string consumer;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, Admitted> admitted_;  // by namespace name
};

}  // namespace fed::tenancy

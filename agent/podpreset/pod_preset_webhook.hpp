#pragma once
// The PodPreset webhook's server (HTTPS, POST kPodPresetPath): answers each pod CREATE with
// pod_preset_merge's answer, from the PodPresets of the pod's namespace in an informer's cache
// (no API call per pod).

#include <memory>
#include <string>
#include <string_view>

#include "shared/http/server.hpp"
#include "shared/kube/informer.hpp"
#include "shared/webhook/webhook_tls_store.hpp"

namespace fed::podpreset {

inline constexpr std::string_view kPodPresetPath = "/mutate-pods";
inline constexpr std::string_view kDefaultPodPresetBindAddress = "0.0.0.0:9443";
// The CRD's resource, its TLS material, Service and MutatingWebhookConfiguration
// (manifests/features/podpreset/).
inline constexpr std::string_view kPodPresetGroup = "settings.kubectl-fed.io";
inline constexpr std::string_view kPodPresetVersion = "v1alpha1";
inline constexpr std::string_view kPodPresetResource = "podpresets";
inline constexpr std::string_view kPodPresetSecret = "fed-podpreset-webhook-tls";
inline constexpr std::string_view kPodPresetService = "fed-podpreset-webhook";
inline constexpr std::string_view kPodPresetWebhookConfiguration = "kubectl-fed-podpreset";

class PodPresetWebhook final {
 public:
  // Listens on `bind_address` with the pair in `tls`, answering the callers it admits; reads
  // presets from `presets` (an
  // informer on podpresets of every namespace).
  static Result<std::unique_ptr<PodPresetWebhook>> start(const std::string& bind_address,
                                                         const webhook::WebhookTlsStore& tls,
                                                         kube::Informer& presets);
  void stop() { server_->stop(); }
  const std::string& local_address() const { return server_->local_address(); }

 private:
  explicit PodPresetWebhook(kube::Informer& presets) : presets_(presets) {}
  http::Response review(const http::Request& request);

  kube::Informer& presets_;
  std::unique_ptr<http::Server> server_;
};

}  // namespace fed::podpreset

#pragma once
// `fed-agent podpreset`: the PodPreset feature on a cluster (seed 003, tactic T1), a Deployment
// `kubectl fed reconfigure --set podPreset=true` installs. It caches the PodPresets of every
// namespace, keeps its webhook's TLS pair (Secret) and the CA bundle of its
// MutatingWebhookConfiguration, and serves the webhook (pod_preset_webhook.hpp).

#include <atomic>
#include <memory>
#include <string>

#include "kube/informer.hpp"
#include "offload/webhook_wiring.hpp"
#include "podpreset/pod_preset_webhook.hpp"
#include "roles/role_runner.hpp"

namespace fed::podpreset {

struct PodPresetOptions {
  std::string bind_address{kDefaultPodPresetBindAddress};  // the webhook (HTTPS)
  std::string cert_dir;  // its serving pair; empty: a directory under the temporary directory
  std::string namespace_name = "kubectl-fed-system";  // where its Secret and Service are
};

class PodPresetRunner final : public agent::RoleRunner {
 public:
  explicit PodPresetRunner(PodPresetOptions options) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::PodPreset; }
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override { return ready_.load(); }
  void stop() override;

 private:
  PodPresetOptions options_;
  std::shared_ptr<kube::DynamicClient> client_;
  std::unique_ptr<kube::Informer> presets_;
  std::unique_ptr<offload::WebhookWiring> wiring_;
  std::unique_ptr<PodPresetWebhook> webhook_;
  std::atomic<bool> ready_{false};
};

}  // namespace fed::podpreset

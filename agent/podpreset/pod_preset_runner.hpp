#pragma once
// `fed-agent podpreset`: the PodPreset feature on a cluster (seed 003, tactic T1), a Deployment
// `kubectl fed reconfigure --set podPreset=true` installs. It caches the PodPresets of every
// namespace, keeps its webhook's TLS pair (Secret) and the CA bundle of its
// MutatingWebhookConfiguration, and serves the webhook (pod_preset_webhook.hpp).

#include <atomic>
#include <memory>
#include <string>

#include "agent/podpreset/pod_preset_webhook.hpp"
#include "agent/roles/role_runner.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/webhook/webhook_wiring.hpp"

namespace fed::podpreset {

struct PodPresetOptions {
  std::string bind_address{kDefaultPodPresetBindAddress};  // the webhook (HTTPS)
  std::string cert_dir;  // its serving pair; empty: a directory under the temporary directory
  webhook::WebhookCallers callers = webhook::WebhookCallers::Any;  // --webhook-caller-auth
  std::string namespace_name{fedapi::kNamespace};  // where its Secret and Service are
};

class PodPresetRunner final : public agent::RoleRunner {
 public:
  explicit PodPresetRunner(PodPresetOptions options) : options_(std::move(options)) {}
  agent::Role role() const override { return agent::Role::PodPreset; }
  Status start(const agent::RoleContext& ctx) override;
  bool ready() const override { return manager_ && manager_->healthy(); }
  void stop() override;

 private:
  // The webhook once the presets are cached: TLS material, the configuration's CA bundle, the
  // server.
  Status start_webhook(kube::Informer& presets);
  void stop_webhook();

  PodPresetOptions options_;
  // First, so destroyed last: the webhook reads the manager's presets cache.
  std::unique_ptr<kube::ControllerManager> manager_;
  std::unique_ptr<webhook::WebhookWiring> wiring_;
  std::unique_ptr<PodPresetWebhook> webhook_;
};

}  // namespace fed::podpreset

#include "agent/podpreset/pod_preset_runner.hpp"

#include <spdlog/spdlog.h>

#include "agent/roles/api_config.hpp"

namespace fed::podpreset {
namespace {

// Long enough for an API server that is just starting; the CRD is installed before this role.
constexpr std::chrono::seconds kSyncTimeout{60};

}  // namespace

Status PodPresetRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-podpreset"));
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(config)));
  manager_ = std::make_unique<kube::ControllerManager>(client);
  kube::Informer& presets = manager_->informer(
      kube::ResourceRef{{std::string(kPodPresetGroup), std::string(kPodPresetVersion),
                         std::string(kPodPresetResource)},
                        "",
                        "",
                        ""});
  manager_->add_runnable(
      "podpreset webhook", [this, &presets] { return start_webhook(presets); },
      [this] { stop_webhook(); });
  FED_TRY(manager_->start());
  spdlog::info("podpreset: {} PodPreset(s) cached", presets.store().list().size());
  return ok();
}

Status PodPresetRunner::start_webhook(kube::Informer& presets) {
  // A pod admitted before the presets are cached would miss them for good: serve only after.
  if (!presets.wait_for_sync(kSyncTimeout)) {
    return fail(ErrorCode::Unavailable,
                "podpresets." + std::string(kPodPresetGroup) + " could not be listed within " +
                    std::to_string(kSyncTimeout.count()) +
                    "s: is its CRD installed (kubectl fed reconfigure --set podPreset=true)?");
  }
  FED_ASSIGN_OR_RETURN(
      wiring_, webhook::WebhookWiring::start(
                   manager_->client(), options_.namespace_name, options_.cert_dir,
                   webhook::WebhookTlsNames{std::string(kPodPresetSecret),
                                            std::string(kPodPresetService), "podpreset webhook"},
                   webhook::WebhookConfigTarget{
                       {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
                       std::string(kPodPresetWebhookConfiguration),
                       "podpreset webhook",
                       "pods get no PodPreset injected",
                       webhook::with_ca_bundle},
                   "podpreset-webhook", options_.callers));
  FED_ASSIGN_OR_RETURN(webhook_,
                       PodPresetWebhook::start(options_.bind_address, wiring_->tls(), presets));
  return ok();
}

void PodPresetRunner::stop_webhook() {
  if (webhook_) webhook_->stop();
  if (wiring_) wiring_->stop();
}

void PodPresetRunner::stop() {
  if (manager_) manager_->stop();
}

}  // namespace fed::podpreset

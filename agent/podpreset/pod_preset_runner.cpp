#include "podpreset/pod_preset_runner.hpp"

#include <spdlog/spdlog.h>

#include "offload/webhook_configuration.hpp"
#include "roles/api_config.hpp"

namespace fed::podpreset {
namespace {

// Long enough for an API server that is just starting; the CRD is installed before this role.
constexpr std::chrono::seconds kSyncTimeout{60};

}  // namespace

Status PodPresetRunner::start(const agent::RoleContext& ctx) {
  FED_ASSIGN_OR_RETURN(auto config, agent::api_config(ctx.options, "fed-agent-podpreset"));
  FED_ASSIGN_OR_RETURN(client_, kube::DynamicClient::create(std::move(config)));

  presets_ = std::make_unique<kube::Informer>(
      client_, kube::ResourceRef{{std::string(kPodPresetGroup), std::string(kPodPresetVersion),
                                  std::string(kPodPresetResource)},
                                 "",
                                 "",
                                 ""});
  presets_->start();
  // A pod admitted before the presets are cached would miss them for good: serve only after.
  if (!presets_->wait_for_sync(kSyncTimeout)) {
    return fail(ErrorCode::Unavailable,
                "podpresets." + std::string(kPodPresetGroup) + " could not be listed within " +
                    std::to_string(kSyncTimeout.count()) +
                    "s: is its CRD installed (kubectl fed reconfigure --set podPreset=true)?");
  }

  FED_ASSIGN_OR_RETURN(
      wiring_, offload::WebhookWiring::start(
                   client_, options_.namespace_name, options_.cert_dir,
                   offload::WebhookTlsNames{std::string(kPodPresetSecret),
                                            std::string(kPodPresetService), "podpreset webhook"},
                   offload::WebhookConfigTarget{
                       {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
                       std::string(kPodPresetWebhookConfiguration),
                       "podpreset webhook",
                       "pods get no PodPreset injected",
                       offload::with_ca_bundle},
                   "podpreset-webhook"));
  FED_ASSIGN_OR_RETURN(webhook_,
                       PodPresetWebhook::start(options_.bind_address, wiring_->files(), *presets_));
  spdlog::info("podpreset: {} PodPreset(s) cached", presets_->store().list().size());
  ready_ = true;
  return ok();
}

void PodPresetRunner::stop() {
  ready_ = false;
  if (webhook_) webhook_->stop();
  if (wiring_) wiring_->stop();
  if (presets_) presets_->stop();
}

}  // namespace fed::podpreset

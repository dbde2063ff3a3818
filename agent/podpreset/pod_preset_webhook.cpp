#include "agent/podpreset/pod_preset_webhook.hpp"

#include <spdlog/spdlog.h>

#include "agent/podpreset/pod_preset_merge.hpp"
#include "shared/util/json_text.hpp"

namespace fed::podpreset {
namespace {

using nlohmann::json;

}  // namespace

Result<std::unique_ptr<PodPresetWebhook>> PodPresetWebhook::start(
    const std::string& bind_address, const webhook::WebhookTlsStore& tls, kube::Informer& presets) {
  http::ServerOptions options;
  options.bind_address = bind_address;
  options.tls = tls.files();
  options.name = "podpreset-webhook";
  FED_ASSIGN_OR_RETURN(auto server, http::Server::create(std::move(options)));
  std::unique_ptr<PodPresetWebhook> webhook(new PodPresetWebhook(presets));
  server->handle(std::string(kPodPresetPath),
                 tls.admitting([w = webhook.get()](const http::Request& request) {
                   return w->review(request);
                 }),
                 {"POST"});
  FED_TRY(server->start());
  spdlog::info("podpreset webhook: serving {} on https://{}", kPodPresetPath,
               server->local_address());
  webhook->server_ = std::move(server);
  return webhook;
}

http::Response PodPresetWebhook::review(const http::Request& request) {
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return http::Response::text(400, "body is not JSON\n");
  // Read without json's throwing value(): the body is whatever the caller sent.
  const std::string ns(util::string_field(util::field(body, "request"), "namespace"));
  std::vector<json> presets;
  for (const auto& preset : presets_.store().list(ns)) presets.push_back(*preset);
  auto answered = review_pod(body, presets);
  if (!answered) return http::Response::text(400, answered.error().message() + "\n");
  const json& response = (*answered)["response"];
  if (response.contains("warnings")) {
    const std::string_view name = util::string_field(body["request"], "name");
    spdlog::info("podpreset webhook: pod {}/{}: {}", ns, name.empty() ? "(generated name)" : name,
                 response["warnings"][0].get<std::string>());
  }
  return http::Response::json(200, answered->dump());
}

}  // namespace fed::podpreset

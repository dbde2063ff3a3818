#include "agent/podpreset/pod_preset_webhook.hpp"

#include <spdlog/spdlog.h>

#include "agent/podpreset/pod_preset_merge.hpp"

namespace fed::podpreset {
namespace {

using nlohmann::json;

}  // namespace

Result<std::unique_ptr<PodPresetWebhook>> PodPresetWebhook::start(const std::string& bind_address,
                                                                  http::TlsFiles tls,
                                                                  kube::Informer& presets) {
  http::ServerOptions options;
  options.bind_address = bind_address;
  options.tls = std::move(tls);
  options.name = "podpreset-webhook";
  FED_ASSIGN_OR_RETURN(auto server, http::Server::create(std::move(options)));
  std::unique_ptr<PodPresetWebhook> webhook(new PodPresetWebhook(presets));
  server->handle(std::string(kPodPresetPath),
                 [w = webhook.get()](const http::Request& request) { return w->review(request); },
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
  std::string ns;
  if (body.contains("request") && body["request"].is_object()) {
    ns = body["request"].value("namespace", "");
  }
  std::vector<json> presets;
  for (const auto& preset : presets_.store().list(ns)) presets.push_back(*preset);
  auto answered = review_pod(body, presets);
  if (!answered) return http::Response::text(400, answered.error().message() + "\n");
  const json& response = (*answered)["response"];
  if (response.contains("warnings")) {
    spdlog::info("podpreset webhook: pod {}/{}: {}", ns,
                 body["request"].value("name", std::string("(generated name)")),
                 response["warnings"][0].get<std::string>());
  }
  return http::Response::json(200, answered->dump());
}

}  // namespace fed::podpreset

#include "agent/manager/offload/webhook/pod_webhook.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/offload/webhook/pod_admission.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/util/json_text.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

// The spec of `ns`'s NamespaceOffloading, nullopt when it has none (or it is being deleted).
std::optional<fedapi::NamespaceOffloadingSpec> offloading_of(kube::Informer& offloadings,
                                                             const std::string& ns) {
  auto object = offloadings.store().get(ns, std::string(fedapi::kNamespaceOffloadingName));
  if (!object || (*object)["metadata"].contains("deletionTimestamp")) return std::nullopt;
  auto spec = fedapi::decode<fedapi::NamespaceOffloadingSpec>(object->value("spec", json::object()),
                                                              "NamespaceOffloading " + ns);
  if (!spec) return std::nullopt;  // refused by the offloading controller too
  return *spec;
}

http::Response review(const http::Request& request, kube::Informer& offloadings) {
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return http::Response::text(400, "body is not JSON\n");
  // Read without json's throwing value(): the body is whatever the caller sent.
  const std::string ns(util::string_field(util::field(body, "request"), "namespace"));
  auto answered = review_pod(body, offloading_of(offloadings, ns));
  if (!answered) return http::Response::text(400, answered.error().message() + "\n");
  return http::Response::json(200, answered->dump());
}

}  // namespace

Result<std::unique_ptr<PodWebhook>> PodWebhook::start(const std::string& bind_address,
                                                      const webhook::WebhookTlsStore& tls,
                                                      kube::Informer& offloadings) {
  http::ServerOptions options;
  options.bind_address = bind_address;
  options.tls = tls.files();
  options.name = "webhook";
  FED_ASSIGN_OR_RETURN(auto server, http::Server::create(std::move(options)));
  server->handle(std::string(kWebhookPath),
                 tls.admitting([&offloadings](const http::Request& request) {
                   return review(request, offloadings);
                 }),
                 {"POST"});
  FED_TRY(server->start());
  spdlog::info("pod webhook: serving {} on https://{}", kWebhookPath, server->local_address());
  return std::unique_ptr<PodWebhook>(new PodWebhook(std::move(server)));
}

void PodWebhook::stop() {
  server_->stop();
}

}  // namespace fed::offload

#include "agent/tenancy/namespace_cap_webhook.hpp"

#include <spdlog/spdlog.h>

#include <set>

#include "agent/tenancy/tenant_policy.hpp"

namespace fed::tenancy {
namespace {

using nlohmann::json;

}  // namespace

Result<std::unique_ptr<NamespaceCapWebhook>> NamespaceCapWebhook::start(
    const std::string& bind_address, const webhook::WebhookTlsStore& tls, kube::Informer& replicas,
    int namespace_quota) {
  http::ServerOptions options;
  options.bind_address = bind_address;
  options.tls = tls.files();
  options.name = "tenancy-webhook";
  FED_ASSIGN_OR_RETURN(auto server, http::Server::create(std::move(options)));
  std::unique_ptr<NamespaceCapWebhook> webhook(new NamespaceCapWebhook(replicas, namespace_quota));
  server->handle(std::string(kNamespaceCapPath),
                 tls.admitting([w = webhook.get()](const http::Request& request) {
                   return w->review(request);
                 }),
                 {"POST"});
  FED_TRY(server->start());
  spdlog::info("tenancy webhook: serving {} on https://{} (cap {} namespaces per consumer)",
               kNamespaceCapPath, server->local_address(), namespace_quota);
  webhook->server_ = std::move(server);
  return webhook;
}

int NamespaceCapWebhook::held_by(const std::string& consumer,
                                 std::chrono::steady_clock::time_point now) {
  std::set<std::string> names;
  std::set<std::string> cached;
  for (const auto& ns : replicas_.store().list()) {
    const std::string name = (*ns)["metadata"].value("name", "");
    cached.insert(name);
    if ((*ns)["metadata"].contains("deletionTimestamp")) continue;
    if (consumer_of(*ns) == consumer) names.insert(name);
  }
  for (auto it = admitted_.begin(); it != admitted_.end();) {
    if (cached.contains(it->first) || now - it->second.at > kAdmittedGrace) {
      it = admitted_.erase(it);
      continue;
    }
    if (it->second.consumer == consumer) names.insert(it->first);
    ++it;
  }
  return static_cast<int>(names.size());
}

http::Response NamespaceCapWebhook::review(const http::Request& request) {
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded()) return http::Response::text(400, "body is not JSON\n");
  auto create = parse_namespace_create(body);
  if (!create) return http::Response::text(400, create.error().message() + "\n");
  if (!create->consumer)
    return http::Response::json(200, answer_namespace_create(*create, 0, 0).dump());

  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  const int held = held_by(*create->consumer, now);
  json answered = answer_namespace_create(*create, held, namespace_quota_);
  const bool allowed = answered["response"].value("allowed", false);
  if (allowed && !create->request.dry_run) admitted_[create->name] = {*create->consumer, now};
  if (!allowed) {
    spdlog::info("tenancy webhook: refused namespace {} of consumer {} ({} held, cap {})",
                 create->name, *create->consumer, held, namespace_quota_);
  }
  return http::Response::json(200, answered.dump());
}

}  // namespace fed::tenancy

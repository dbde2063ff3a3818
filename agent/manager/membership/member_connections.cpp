#include "agent/manager/membership/member_connections.hpp"

#include "shared/kube/kubeconfig.hpp"
#include "shared/kube/kubeconfig_resolve.hpp"
#include "shared/util/base64.hpp"

namespace fed::federation {

using nlohmann::json;

Result<kube::RestConfig> rest_config_from_kubeconfig_text(const std::string& text,
                                                          const std::string& origin) {
  FED_ASSIGN_OR_RETURN(auto config, kube::parse_kubeconfig(text, origin));
  return kube::resolve(config, kube::LoadOptions{});
}

Result<std::shared_ptr<kube::DynamicClient>> MemberConnections::client_for(const json& fc) {
  const std::string member = fc["metadata"].value("name", "");
  const json ref = fc["spec"].value("credentialSecretRef", json::object());
  const std::string ns = ref.value("namespace", ""), name = ref.value("name", "");
  const std::string what = "FederatedCluster " + member + ": credential Secret " + ns + "/" + name;
  auto secret = credential_secret(ns, name);
  if (!secret) return fail(secret.error().code(), what + ": " + secret.error().message());
  const json& object = **secret;
  const std::string version = object["metadata"].value("resourceVersion", "");
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(member);
    if (it != entries_.end() && it->second.secret_version == version) return it->second.client;
  }
  const json data = object.value("data", json::object());
  if (!data.contains("kubeconfig") || !data["kubeconfig"].is_string()) {
    return fail(ErrorCode::Invalid, what + " has no data.kubeconfig; join the member again");
  }
  auto text = util::base64_decode(data["kubeconfig"].get<std::string>());
  if (!text) return fail(ErrorCode::Invalid, what + ": data.kubeconfig is not base64");
  auto config = rest_config_from_kubeconfig_text(*text, what);
  if (!config) return fail(ErrorCode::Invalid, what + ": " + config.error().message());
  config->user_agent = "fed-agent-manager";
  FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(*config)));
  std::lock_guard lock(mu_);
  entries_[member] = Entry{version, client};
  return client;
}

Result<kube::ObjectPtr> MemberConnections::credential_secret(const std::string& ns,
                                                             const std::string& name) {
  if (credentials_ != nullptr && credentials_->has_synced() &&
      credentials_->collection().ns == ns) {
    if (auto cached = credentials_->store().get(ns, name)) return cached;
  }
  auto secret = host_->get(kube::ResourceRef{{"", "v1", "secrets"}, ns, name, ""});
  if (!secret) return secret.error().to_error();
  return std::make_shared<const json>(std::move(*secret));
}

void MemberConnections::forget(const std::string& member) {
  std::lock_guard lock(mu_);
  entries_.erase(member);
}

}  // namespace fed::federation

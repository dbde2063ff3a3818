#pragma once
// Clients for member clusters, built from the credential Secrets `kubectl fed join` leaves on
// the host (docs/JOIN.md), cached per member and rebuilt when the Secret changes. Every member
// call of every controller asks for its client, so the Secret is read from an informer's cache
// when there is one: a GET per call was most of the manager's requests to the host.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/result/result.hpp"

namespace fed::federation {

class MemberConnections final {
 public:
  // `credentials`, when given, caches the Secrets of its namespace
  // (fedapi::kMemberCredentialLabel); one not in it yet (just created by join) is read from the API
  // server.
  explicit MemberConnections(std::shared_ptr<kube::DynamicClient> host,
                             const kube::Informer* credentials = nullptr)
      : host_(std::move(host)), credentials_(credentials) {}

  // The client for the FederatedCluster `fc` (its spec.credentialSecretRef). Invalid when the
  // Secret holds no usable kubeconfig, NotFound when it is missing.
  Result<std::shared_ptr<kube::DynamicClient>> client_for(const nlohmann::json& fc);
  void forget(const std::string& member);

 private:
  struct Entry {
    std::string secret_version;
    std::shared_ptr<kube::DynamicClient> client;
  };
  Result<kube::ObjectPtr> credential_secret(const std::string& ns, const std::string& name);

  std::shared_ptr<kube::DynamicClient> host_;
  const kube::Informer* credentials_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// A RestConfig from the kubeconfig text of a credential Secret (its current context).
Result<kube::RestConfig> rest_config_from_kubeconfig_text(const std::string& text,
                                                          const std::string& origin);

}  // namespace fed::federation

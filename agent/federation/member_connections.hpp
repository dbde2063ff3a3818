#pragma once
// Clients for member clusters, built from the credential Secrets `kubectl fed join` leaves on
// the host (docs/JOIN.md), cached per member and rebuilt when the Secret changes.

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "kube/dynamic_client.hpp"
#include "result/result.hpp"

namespace fed::federation {

class MemberConnections final {
 public:
  explicit MemberConnections(std::shared_ptr<kube::DynamicClient> host) : host_(std::move(host)) {}

  // The client for the FederatedCluster `fc` (its spec.credentialSecretRef). Invalid when the
  // Secret holds no usable kubeconfig, NotFound when it is missing.
  Result<std::shared_ptr<kube::DynamicClient>> client_for(const nlohmann::json& fc);
  void forget(const std::string& member);

 private:
  struct Entry {
    std::string secret_version;
    std::shared_ptr<kube::DynamicClient> client;
  };
  std::shared_ptr<kube::DynamicClient> host_;
  std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// A RestConfig from the kubeconfig text of a credential Secret (its current context).
Result<kube::RestConfig> rest_config_from_kubeconfig_text(const std::string& text,
                                                          const std::string& origin);

}  // namespace fed::federation

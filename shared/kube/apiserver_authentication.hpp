#pragma once
// What kube-apiserver publishes in kube-system/extension-apiserver-authentication for the
// servers it calls to authenticate it: its client CA (the kubelet client certificate is signed
// by it) and its front-proxy CA with the names the front-proxy certificate may carry. Extension
// API servers read the same ConfigMap; the default RBAC lets a ServiceAccount bound to the
// Role kube-system/extension-apiserver-authentication-reader get it.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::kube {

inline constexpr std::string_view kApiServerAuthenticationConfigMap =
    "kube-system/extension-apiserver-authentication";

struct ApiServerAuthentication {
  std::string client_ca;  // client-ca-file (PEM); "" without --client-ca-file
  // requestheader-client-ca-file (PEM); "" without --requestheader-client-ca-file
  std::string front_proxy_ca;
  // requestheader-allowed-names: the common names a front-proxy certificate may have; empty:
  // any certificate the front-proxy CA signed.
  std::vector<std::string> front_proxy_names;
};

// From the ConfigMap's object. Invalid when requestheader-allowed-names is not a JSON list of
// strings (the API server writes it as one).
Result<ApiServerAuthentication> parse_apiserver_authentication(const nlohmann::json& configmap);

// Reads and parses it.
Result<ApiServerAuthentication> read_apiserver_authentication(DynamicClient& client);

}  // namespace fed::kube

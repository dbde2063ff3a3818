#include "shared/kube/apiserver_authentication.hpp"

#include "shared/util/json_text.hpp"

namespace fed::kube {
namespace {

using nlohmann::json;

const ResourceRef kConfigMap{
    {"", "v1", "configmaps"}, "kube-system", "extension-apiserver-authentication", ""};

}  // namespace

Result<ApiServerAuthentication> parse_apiserver_authentication(const json& configmap) {
  const json& d = util::field(configmap, "data");
  ApiServerAuthentication out;
  out.client_ca = util::string_field(d, "client-ca-file");
  out.front_proxy_ca = util::string_field(d, "requestheader-client-ca-file");
  const std::string_view names = util::string_field(d, "requestheader-allowed-names");
  if (names.empty()) return out;
  const json list = json::parse(names, nullptr, false);
  auto invalid = [] {
    return fail(ErrorCode::Invalid,
                std::string(kApiServerAuthenticationConfigMap) +
                    " data.requestheader-allowed-names: not a JSON list of names (kube-apiserver "
                    "writes it from --requestheader-allowed-names)");
  };
  if (!list.is_array()) return invalid();
  for (const auto& name : list) {
    if (!name.is_string()) return invalid();
    out.front_proxy_names.push_back(name.get<std::string>());
  }
  return out;
}

Result<ApiServerAuthentication> read_apiserver_authentication(DynamicClient& client) {
  auto configmap = client.get(kConfigMap);
  if (!configmap) {
    return configmap.error().to_error().with_context(
        "reading ConfigMap " + std::string(kApiServerAuthenticationConfigMap));
  }
  return parse_apiserver_authentication(*configmap);
}

}  // namespace fed::kube

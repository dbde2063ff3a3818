#include "offload/webhook_configuration.hpp"

#include "util/base64.hpp"

namespace fed::offload {

nlohmann::json with_ca_bundle(const nlohmann::json& current, const std::string& ca_bundle_pem) {
  nlohmann::json updated = current;
  const std::string bundle = util::base64_encode(ca_bundle_pem);
  for (auto& webhook : updated["webhooks"]) webhook["clientConfig"]["caBundle"] = bundle;
  return updated;
}

nlohmann::json webhook_configuration(const nlohmann::json& current,
                                     const std::string& ca_bundle_pem,
                                     const std::set<std::string>& namespaces) {
  nlohmann::json updated = with_ca_bundle(current, ca_bundle_pem);
  // An empty In list is invalid; "" is a valid label value that no namespace name has.
  nlohmann::json values =
      namespaces.empty() ? nlohmann::json::array({""}) : nlohmann::json(namespaces);
  for (auto& webhook : updated["webhooks"]) {
    webhook["namespaceSelector"] = {
        {"matchExpressions",
         nlohmann::json::array(
             {{{"key", "kubernetes.io/metadata.name"}, {"operator", "In"}, {"values", values}}})}};
  }
  return updated;
}

}  // namespace fed::offload

#include "agent/manager/offload/webhook/webhook_configuration.hpp"

#include "shared/webhook/webhook_config_reconciler.hpp"

namespace fed::offload {

nlohmann::json webhook_configuration(const nlohmann::json& current,
                                     const std::string& ca_bundle_pem,
                                     const std::set<std::string>& namespaces) {
  nlohmann::json updated = webhook::with_ca_bundle(current, ca_bundle_pem);
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

#pragma once
// The MutatingWebhookConfiguration kWebhookConfiguration (installed by `kubectl fed init`
// without a caBundle and matching no namespace) as the manager keeps it: every webhook's
// caBundle is the CA bundle in force, and its namespaceSelector names exactly the offloaded
// namespaces (kubernetes.io/metadata.name In [...]), so no other pod ever waits on the manager.
// The manager needs no right on namespaces for this, only get/update on this one object.

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace fed::offload {

inline constexpr std::string_view kWebhookConfiguration = "kubectl-fed-pods";

// `current` with every webhook's clientConfig.caBundle = base64(`ca_bundle_pem`) and
// namespaceSelector selecting `namespaces` by name (none: a value no namespace has).
nlohmann::json webhook_configuration(const nlohmann::json& current,
                                     const std::string& ca_bundle_pem,
                                     const std::set<std::string>& namespaces);

}  // namespace fed::offload

#include "agent/tenancy/tenant_policy.hpp"

#include "shared/util/quantity.hpp"
#include "shared/util/strings.hpp"

namespace fed::tenancy {
namespace {

using nlohmann::json;

json tenant_object(std::string_view api_version, std::string_view kind, const std::string& ns,
                   const std::string& consumer, json spec) {
  return {{"apiVersion", api_version},
          {"kind", kind},
          {"metadata",
           {{"name", std::string(kTenantObjectName)},
            {"namespace", ns},
            {"labels",
             {{"app.kubernetes.io/part-of", "kubectl-fed"},
              {"app.kubernetes.io/managed-by", "fed-tenancy"},
              {std::string(kConsumerLabel), consumer}}}}},
          {"spec", std::move(spec)}};
}

}  // namespace

Result<std::map<std::string, std::string>> parse_resource_list(std::string_view text,
                                                               std::string_view flag) {
  std::map<std::string, std::string> out;
  for (const auto& item : util::split(text, ',', util::EmptyParts::Skip)) {
    const auto eq = item.find('=');
    const std::string name(util::trim(item.substr(0, eq)));
    if (eq == std::string::npos || name.empty()) {
      return fail(ErrorCode::Invalid, std::string(flag) + ": \"" + item +
                                          "\" is not NAME=QUANTITY (e.g. cpu=2,memory=4Gi)");
    }
    const std::string value(util::trim(item.substr(eq + 1)));
    if (auto q = util::parse_quantity(value); !q) {
      return fail(ErrorCode::Invalid, std::string(flag) + ": " + name + "=" + value +
                                          " is not a Kubernetes quantity (e.g. 500m, 2, 4Gi)");
    }
    out[name] = value;
  }
  return out;
}

std::optional<std::string> consumer_of(const json& namespace_object) {
  const json labels =
      namespace_object.value("metadata", json::object()).value("labels", json::object());
  auto it = labels.find(std::string(kConsumerLabel));
  if (it == labels.end() || !it->is_string() || it->get<std::string>().empty()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::optional<json> resource_quota(const std::string& ns, const std::string& consumer,
                                   const TenantPolicy& policy) {
  if (policy.quota.empty()) return std::nullopt;
  return tenant_object("v1", "ResourceQuota", ns, consumer, {{"hard", policy.quota}});
}

std::optional<json> limit_range(const std::string& ns, const std::string& consumer,
                                const TenantPolicy& policy) {
  if (policy.default_request.empty()) return std::nullopt;
  return tenant_object(
      "v1", "LimitRange", ns, consumer,
      {{"limits",
        json::array({{{"type", "Container"}, {"defaultRequest", policy.default_request}}})}});
}

std::optional<json> network_policy(const std::string& ns, const std::string& consumer,
                                   const TenantPolicy& policy) {
  if (policy.local_pod_cidr.empty()) return std::nullopt;
  json same_consumer{
      {"namespaceSelector", {{"matchLabels", {{std::string(kConsumerLabel), consumer}}}}}};
  json outside{{"ipBlock", {{"cidr", "0.0.0.0/0"}, {"except", {policy.local_pod_cidr}}}}};
  return tenant_object("networking.k8s.io/v1", "NetworkPolicy", ns, consumer,
                       {{"podSelector", json::object()},
                        {"policyTypes", {"Ingress"}},
                        {"ingress", json::array({{{"from", {same_consumer, outside}}}})}});
}

}  // namespace fed::tenancy

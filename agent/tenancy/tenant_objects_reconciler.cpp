#include "agent/tenancy/tenant_objects_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <array>

namespace fed::tenancy {
namespace {

using nlohmann::json;

struct TenantKind {
  kube::GroupVersionResource gvr;
  std::optional<json> (*desired)(const std::string&, const std::string&, const TenantPolicy&);
};

const std::array<TenantKind, 3> kKinds{{
    {{"", "v1", "resourcequotas"}, resource_quota},
    {{"", "v1", "limitranges"}, limit_range},
    {{"networking.k8s.io", "v1", "networkpolicies"}, network_policy},
}};

// Whether `live` already has `desired`'s spec and labels.
bool matches(const json& live, const json& desired) {
  if (live.value("spec", json::object()) != desired["spec"]) return false;
  const json labels = live["metadata"].value("labels", json::object());
  for (const auto& [k, v] : desired["metadata"]["labels"].items()) {
    if (labels.value(k, json()) != v) return false;
  }
  return true;
}

Status ensure(kube::DynamicClient& client, const kube::ResourceRef& ref,
              const std::optional<json>& desired) {
  auto live = client.get(ref);
  if (!live && !live.error().is_not_found()) return live.error().to_error();
  const std::string what = ref.gvr.resource + " " + ref.ns + "/" + ref.name;
  if (!desired) {
    if (!live) return ok();
    auto removed = client.remove(ref);
    if (!removed && !removed.error().is_not_found()) {
      return removed.error().to_error().with_context("deleting " + what);
    }
    spdlog::info("tenancy: removed {} (no longer in the policy)", what);
    return ok();
  }
  if (!live) {
    auto created = client.create(kube::ResourceRef{ref.gvr, ref.ns, "", ""}, *desired);
    if (!created && !created.error().is_already_exists()) {
      return created.error().to_error().with_context("creating " + what);
    }
    spdlog::info("tenancy: created {}", what);
    return ok();
  }
  if (matches(*live, *desired)) return ok();
  json updated = *live;  // keeps resourceVersion: a conditional update
  updated["spec"] = (*desired)["spec"];
  for (const auto& [k, v] : (*desired)["metadata"]["labels"].items()) {
    updated["metadata"]["labels"][k] = v;
  }
  auto written = client.update(ref, updated);
  if (!written) return written.error().to_error().with_context("restoring " + what);
  spdlog::info("tenancy: restored {} to the provider's policy", what);
  return ok();
}

}  // namespace

TenantObjectsReconciler::TenantObjectsReconciler(std::shared_ptr<kube::DynamicClient> client,
                                                 kube::Informer& replicas, TenantPolicy policy)
    : client_(std::move(client)), replicas_(replicas), policy_(std::move(policy)) {}

Result<kube::Requeue> TenantObjectsReconciler::reconcile(const kube::Request& request) {
  auto ns = replicas_.store().get("", request.name);
  if (!ns || (*ns)["metadata"].contains("deletionTimestamp")) return kube::Requeue{};
  const auto consumer = consumer_of(*ns);
  if (!consumer) return kube::Requeue{};
  for (const auto& kind : kKinds) {
    FED_TRY(ensure(*client_,
                   kube::ResourceRef{kind.gvr, request.name, std::string(kTenantObjectName), ""},
                   kind.desired(request.name, *consumer, policy_)));
  }
  return kube::Requeue{kTenantRecheck};
}

}  // namespace fed::tenancy

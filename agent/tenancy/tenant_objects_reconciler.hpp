#pragma once
// Keeps the provider's ResourceQuota, LimitRange and NetworkPolicy (tenant_policy.hpp) in every
// replica namespace: created when a replica appears, put back when someone edits or deletes
// them (checked again every kTenantRecheck), removed when the policy no longer has that kind.
// One key per replica namespace.

#include <chrono>
#include <memory>

#include "agent/tenancy/tenant_policy.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::tenancy {

inline constexpr std::chrono::seconds kTenantRecheck{30};

class TenantObjectsReconciler final : public kube::Reconciler {
 public:
  // `replicas`: an informer on namespaces labelled kConsumerLabel.
  TenantObjectsReconciler(std::shared_ptr<kube::DynamicClient> client, kube::Informer& replicas,
                          TenantPolicy policy);
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  std::shared_ptr<kube::DynamicClient> client_;
  kube::Informer& replicas_;
  const TenantPolicy policy_;
};

}  // namespace fed::tenancy

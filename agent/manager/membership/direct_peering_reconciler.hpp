#pragma once
// The manager's DirectPeering controller (`kubectl fed peer A B`; docs/JOIN.md): a mesh link
// between two members, beside their hub-and-spoke links to the host. It runs the network
// exchange between the two members' IPAMs (each keeps or remaps the other's PodCIDR and
// ExternalCIDR), persists both, writes Peering B on A and Peering A on B with the other
// gateway's endpoint and key and the members' own tunnel addresses, and reports the pair's
// state. A finalizer tears both sides down when the object is deleted.

#include <nlohmann/json.hpp>

#include "agent/manager/membership/membership_reconciler.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::federation {

inline constexpr std::string_view kDirectPeeringFinalizer = "kubectl-fed.io/direct-peering";

class DirectPeeringReconciler final : public kube::Reconciler {
 public:
  DirectPeeringReconciler(std::shared_ptr<kube::DynamicClient> host, kube::Informer& peerings,
                          MembershipReconciler& membership);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  Result<kube::Requeue> link(const nlohmann::json& object, const std::string& a,
                             const std::string& b);
  Status unlink(const std::string& a, const std::string& b);
  Status report(const nlohmann::json& object, bool ready, const std::string& reason,
                const std::string& message, const nlohmann::json& tunnel);

  std::shared_ptr<kube::DynamicClient> host_;
  kube::Informer& peerings_;
  MembershipReconciler& membership_;
};

}  // namespace fed::federation

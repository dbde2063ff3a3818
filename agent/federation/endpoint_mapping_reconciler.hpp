#pragma once
// The manager's EndpointMapping controller: MapEndpointIP / UnmapEndpointIP of spec 002 §2.4 as
// API objects on the host. For each EndpointMapping (peer, endpoint as the host sees it) it asks
// the host IPAM for the address the peer must use, persists the IPAM, and — when the endpoint is
// not the host's own pod, e.g. a pod of another member reached hub-and-spoke — writes the
// peer's NatMapping so the host gateway DNATs that address to the endpoint. Deleting the object
// releases the peer's reference (a finalizer makes sure).

#include <nlohmann/json.hpp>

#include "federation/cluster_ipam.hpp"
#include "federation/membership_reconciler.hpp"
#include "kube/informer.hpp"
#include "kube/reconciler.hpp"

namespace fed::federation {

inline constexpr std::string_view kEndpointFinalizer = "kubectl-fed.io/endpoint-mapping";

class EndpointMappingReconciler final : public kube::Reconciler {
 public:
  EndpointMappingReconciler(HostCluster host, kube::Informer& mappings);

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  Result<kube::Requeue> map(const nlohmann::json& object);
  Status unmap(const nlohmann::json& object);
  // Applies the peer's NatMapping from the IPAM (the caller holds the IPAM's mutex).
  Status write_nat_mapping(const std::string& peer);
  Status report(const nlohmann::json& object, const std::string& address, const std::string& path,
                bool ready, const std::string& reason, const std::string& message);

  HostCluster host_;
  kube::Informer& mappings_;
};

}  // namespace fed::federation

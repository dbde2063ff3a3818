#pragma once
// A Service of an offloaded namespace and its twin on a member (spec 001 §1.2, spec 002 §2.4),
// as pure functions. The twin Service has the host Service's ports and no selector, so the
// member's EndpointSlice controller leaves it alone; its endpoints come from one EndpointSlice
// of ours (managed-by kubectl-fed.io) listing the host's ready endpoints as the member reaches
// them — so the member's own kube-proxy serves the ClusterIP across clusters.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/manager/offload/reflection/reflected_pod.hpp"

namespace fed::offload {

inline constexpr std::string_view kSliceManager = "kubectl-fed.io";
inline constexpr std::string_view kTwinSliceSuffix = "-kubectl-fed";

// Whether a host Service is reflected: a ClusterIP, NodePort or LoadBalancer Service with a
// cluster IP (headless and ExternalName Services are not).
bool reflected_service(const nlohmann::json& service);

// The twin of `service` in target.remote_namespace: type ClusterIP, the same ports (their
// targetPort is the endpoint slice's business), no selector, the origin labels.
nlohmann::json twin_service(const nlohmann::json& service, const TwinTarget& target);

// What the host's EndpointSlices of one Service say: the ports and the ready IPv4 addresses.
struct ServiceEndpoints {
  nlohmann::json ports = nlohmann::json::array();
  std::vector<std::string> addresses;  // sorted, unique
};
ServiceEndpoints host_endpoints(const std::vector<nlohmann::json>& slices);

// The twin's EndpointSlice "<service>-kubectl-fed" listing `addresses` (as the member reaches
// them) with `ports`.
nlohmann::json twin_endpoint_slice(const std::string& service,
                                   const std::vector<std::string>& addresses,
                                   const nlohmann::json& ports, const TwinTarget& target);

}  // namespace fed::offload

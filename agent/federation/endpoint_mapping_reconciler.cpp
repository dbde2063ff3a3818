#include "federation/endpoint_mapping_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <mutex>

#include "fedapi/group.hpp"
#include "fedapi/nat_mapping.hpp"
#include "federation/object_edits.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

kube::ResourceRef mapping_ref(const json& object) {
  return fedapi::ref(fedapi::kEndpointMapping, object["metadata"].value("name", ""));
}

std::string peer_of(const json& object) {
  return object.value("spec", json::object()).value("clusterID", "");
}

std::string endpoint_of(const json& object) {
  return object.value("spec", json::object()).value("endpoint", "");
}

}  // namespace

EndpointMappingReconciler::EndpointMappingReconciler(HostCluster host, kube::Informer& mappings)
    : host_(std::move(host)), mappings_(mappings) {}

Result<kube::Requeue> EndpointMappingReconciler::reconcile(const kube::Request& request) {
  auto object = mappings_.store().get("", request.name);
  if (!object) return kube::Requeue{};
  const json& em = *object;
  const bool finalized = has_finalizer(em, kEndpointFinalizer);
  if (em["metadata"].contains("deletionTimestamp")) {
    if (!finalized) return kube::Requeue{};
    FED_TRY(unmap(em));
    FED_TRY(set_finalizer(*host_.client, mapping_ref(em), em, kEndpointFinalizer, false));
    return kube::Requeue{};
  }
  if (!finalized) {
    // On before the IPAM holds anything for it, so no delete can leak an address.
    FED_TRY(set_finalizer(*host_.client, mapping_ref(em), em, kEndpointFinalizer, true));
    return kube::Requeue{};
  }
  return map(em);
}

Result<kube::Requeue> EndpointMappingReconciler::map(const json& em) {
  const std::string peer = peer_of(em);
  const std::string endpoint = endpoint_of(em);
  ClusterIpam& ipam = *host_.ipam;
  std::unique_lock lock(ipam.mutex());
  auto mapped = ipam.ipam().map_endpoint_ip(peer, endpoint);
  if (!mapped) {
    lock.unlock();
    const auto code = mapped.error().code();
    const std::string reason = code == ErrorCode::NotFound      ? "UnknownPeer"
                               : code == ErrorCode::Unavailable ? "Waiting"
                                                                : "Invalid";
    FED_TRY(report(em, "", "", false, reason, mapped.error().message()));
    return kube::Requeue{code == ErrorCode::Invalid ? 0s : 10s};
  }
  FED_TRY(ipam.save());
  const bool external = mapped->path == fabric::ipam::EndpointPath::External;
  // Always (not only when nat_changed): a NatMapping lost or edited is written back.
  if (external) FED_TRY(write_nat_mapping(peer));
  lock.unlock();
  const std::string address = mapped->ip.str();
  FED_TRY(report(em, address, external ? "ExternalCIDR" : "LocalPod", true, "Mapped",
                 peer + " reaches " + endpoint + " at " + address +
                     (external ? " (DNAT on the host gateway)" : "")));
  return kube::Requeue{};
}

Status EndpointMappingReconciler::unmap(const json& em) {
  const std::string peer = peer_of(em);
  ClusterIpam& ipam = *host_.ipam;
  std::lock_guard lock(ipam.mutex());
  auto unmapped = ipam.ipam().unmap_endpoint_ip(peer, endpoint_of(em));
  // A peer that left took its mappings with it (membership removes the cluster from the IPAM).
  if (!unmapped) {
    if (unmapped.error().code() == ErrorCode::NotFound) return ok();
    return unmapped.error();
  }
  FED_TRY(ipam.save());
  // Always, not only when nat_changed: an earlier pass may have saved the IPAM and then failed
  // to write the NatMapping; the IPAM is the truth the NatMapping follows.
  return write_nat_mapping(peer);
}

Status EndpointMappingReconciler::write_nat_mapping(const std::string& peer) {
  FED_ASSIGN_OR_RETURN(auto set, host_.ipam->ipam().nat_mapping(peer));
  fedapi::NatMappingSpec spec{peer, set.external_cidr.str(), {}};
  for (const auto& [external, endpoint] : set.mappings) {
    spec.mappings[external.str()] = endpoint.str();
  }
  json object{{"apiVersion", std::string(fedapi::kApiVersion)},
              {"kind", std::string(fedapi::kNatMapping.kind)},
              {"metadata",
               {{"name", peer},
                {"labels",
                 {{"app.kubernetes.io/part-of", "kubectl-fed"},
                  {std::string(fedapi::kClusterIdLabel), peer}}}}},
              {"spec", spec}};
  // Server-side apply turns an empty map into null, which the schema refuses; leaving the field
  // out drops the entries this manager owned, which is what an empty set means.
  if (spec.mappings.empty()) object["spec"].erase("mappings");
  auto applied = host_.client->apply(fedapi::ref(fedapi::kNatMapping, peer), object,
                                     kube::ApplyOptions{std::string(kFieldManager), true});
  if (!applied) {
    return fail(applied.error().code(),
                "NatMapping " + peer + ": " + applied.error().to_error().message());
  }
  return ok();
}

Status EndpointMappingReconciler::report(const json& em, const std::string& address,
                                         const std::string& path, bool ready,
                                         const std::string& reason, const std::string& message) {
  return patch_ready_status(*host_.client, mapping_ref(em), em,
                            {{"address", address.empty() ? json(nullptr) : json(address)},
                             {"path", path.empty() ? json(nullptr) : json(path)}},
                            ready, reason, message);
}

}  // namespace fed::federation

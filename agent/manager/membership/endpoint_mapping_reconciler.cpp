#include "agent/manager/membership/endpoint_mapping_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/kube/object_edits.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr std::string_view kNatMappingKey = "NatMapping";

kube::ResourceRef mapping_ref(const json& object) {
  return fedapi::ref(fedapi::kEndpointMapping, object["metadata"].value("name", ""));
}

std::string peer_of(const json& object) {
  return object.value("spec", json::object()).value("clusterID", "");
}

std::string endpoint_of(const json& object) {
  return object.value("spec", json::object()).value("endpoint", "");
}

fedapi::NatMappingSpec spec_of(const fabric::ipam::NatMappingSet& set) {
  fedapi::NatMappingSpec spec{set.cluster_id, set.external_cidr.str(), {}};
  for (const auto& [external, endpoint] : set.mappings) {
    spec.mappings[external.str()] = endpoint.str();
  }
  return spec;
}

// Already reported Ready at `address`: nothing to do (the common case at resync).
bool reported(const json& em, const std::string& address) {
  const json status = em.value("status", json::object());
  if (status.value("address", json()) != json(address)) return false;
  for (const auto& c : status.value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace

EndpointMappingReconciler::EndpointMappingReconciler(HostCluster host, kube::Informer& mappings,
                                                     kube::Informer& nat_mappings)
    : host_(std::move(host)),
      mappings_(mappings),
      nat_mappings_(nat_mappings),
      nat_commit_([this] { return write_nat_mappings(); }) {}

std::vector<kube::Request> EndpointMappingReconciler::nat_mapping_request(const json& nm) {
  return {kube::Request{std::string(kNatMappingKey), nm["metadata"].value("name", "")}};
}

Result<kube::Requeue> EndpointMappingReconciler::reconcile(const kube::Request& request) {
  if (request.ns == kNatMappingKey) {
    FED_TRY(check_nat_mapping(request.name));
    return kube::Requeue{};
  }
  auto object = mappings_.store().get("", request.name);
  if (!object) return kube::Requeue{};
  const json& em = *object;
  const bool finalized = kube::has_finalizer(em, kEndpointFinalizer);
  if (em["metadata"].contains("deletionTimestamp")) {
    if (!finalized) return kube::Requeue{};
    FED_TRY(unmap(em));
    FED_TRY(kube::set_finalizer(*host_.client, mapping_ref(em), em, kEndpointFinalizer, false));
    return kube::Requeue{};
  }
  if (!finalized) {
    // On before the IPAM holds anything for it, so no delete can leak an address.
    FED_TRY(kube::set_finalizer(*host_.client, mapping_ref(em), em, kEndpointFinalizer, true));
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
  const std::string address = mapped->ip.str();
  if (!mapped->nat_changed && reported(em, address)) return kube::Requeue{};
  const bool external = mapped->path == fabric::ipam::EndpointPath::External;
  if (mapped->nat_changed) dirty_peers_.insert(peer);
  const auto change = ipam.ticket();
  lock.unlock();
  // The IPAM first: a NatMapping entry must never point at an address a restart could reuse.
  FED_TRY(ipam.save(change));
  if (external) FED_TRY(nat_commit_.commit());
  FED_TRY(report(em, address, external ? "ExternalCIDR" : "LocalPod", true, "Mapped",
                 peer + " reaches " + endpoint + " at " + address +
                     (external ? " (DNAT on the host gateway)" : "")));
  return kube::Requeue{};
}

Status EndpointMappingReconciler::unmap(const json& em) {
  const std::string peer = peer_of(em);
  ClusterIpam& ipam = *host_.ipam;
  std::unique_lock lock(ipam.mutex());
  auto unmapped = ipam.ipam().unmap_endpoint_ip(peer, endpoint_of(em));
  // A peer that left took its mappings with it (membership removes the cluster from the IPAM).
  if (!unmapped) {
    if (unmapped.error().code() == ErrorCode::NotFound) return ok();
    return unmapped.error();
  }
  // Marked even when nothing changed: an earlier pass may have stored the IPAM and then failed
  // before the NatMapping was written; the IPAM is the truth the NatMapping follows.
  dirty_peers_.insert(peer);
  const auto change = ipam.ticket();
  lock.unlock();
  FED_TRY(ipam.save(change));
  return nat_commit_.commit();
}

Status EndpointMappingReconciler::check_nat_mapping(const std::string& peer) {
  auto stored = nat_mappings_.store().get("", peer);
  const std::int64_t generation =
      stored ? (*stored)["metadata"].value("generation", std::int64_t{0}) : 0;
  // Decoded before taking the IPAM lock: with thousands of entries this is the costly part.
  std::optional<fedapi::NatMappingSpec> stored_spec;
  if (stored) {
    auto spec = fedapi::decode<fedapi::NatMappingSpec>(stored->value("spec", json::object()),
                                                       "NatMapping " + peer + " spec");
    if (spec) stored_spec = std::move(*spec);
  }
  enum class Action { None, Write, Remove } action = Action::None;
  {
    std::lock_guard lock(host_.ipam->mutex());
    if (!host_.ipam->ipam().cluster(peer)) {
      if (stored) action = Action::Remove;
    } else if (stored && written_generation_[peer] == generation) {
      // The spec this manager wrote last (this event is its echo, or the gateway's status);
      // any IPAM change since has a write of its own on the way.
    } else {
      FED_ASSIGN_OR_RETURN(auto set, host_.ipam->ipam().nat_mapping(peer));
      if (!stored_spec || !(*stored_spec == spec_of(set))) {
        dirty_peers_.insert(peer);
        action = Action::Write;
      }
    }
  }
  switch (action) {
    case Action::None:
      return ok();
    case Action::Write:  // lost or edited: written back from the IPAM
      return nat_commit_.commit();
    case Action::Remove:
      spdlog::info("NatMapping {}: the peer is not in the IPAM (it left); removing it", peer);
      return kube::remove_if_present(*host_.client, fedapi::ref(fedapi::kNatMapping, peer));
  }
  return ok();
}

std::vector<kube::Request> EndpointMappingReconciler::startup_requests() {
  std::vector<kube::Request> out;
  std::lock_guard lock(host_.ipam->mutex());
  for (const auto& [id, cluster] : host_.ipam->ipam().snapshot().clusters) {
    out.push_back(kube::Request{std::string(kNatMappingKey), id});
  }
  return out;
}

Status EndpointMappingReconciler::write_nat_mappings() {
  std::vector<fedapi::NatMappingSpec> specs;
  {
    std::lock_guard lock(host_.ipam->mutex());
    for (const auto& peer : std::exchange(dirty_peers_, {})) {
      // A peer that left has no NatMapping to write (membership removed it).
      if (auto set = host_.ipam->ipam().nat_mapping(peer)) specs.push_back(spec_of(*set));
    }
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& spec = specs[i];
    json object{{"apiVersion", std::string(fedapi::kApiVersion)},
                {"kind", std::string(fedapi::kNatMapping.kind)},
                {"metadata",
                 {{"name", spec.cluster_id},
                  {"labels",
                   {{"app.kubernetes.io/part-of", "kubectl-fed"},
                    {std::string(fedapi::kClusterIdLabel), spec.cluster_id}}}}},
                {"spec", spec}};
    // Server-side apply turns an empty map into null, which the schema refuses; leaving the
    // field out drops the entries this manager owned, which is what an empty set means.
    if (spec.mappings.empty()) object["spec"].erase("mappings");
    auto applied = host_.client->apply(fedapi::ref(fedapi::kNatMapping, spec.cluster_id), object,
                                       kube::ApplyOptions{std::string(kFieldManager), true});
    std::lock_guard lock(host_.ipam->mutex());
    if (!applied) {
      for (std::size_t j = i; j < specs.size(); ++j) dirty_peers_.insert(specs[j].cluster_id);
      return applied.error().to_error().with_context("NatMapping " + spec.cluster_id);
    }
    written_generation_[spec.cluster_id] =
        (*applied)["metadata"].value("generation", std::int64_t{0});
  }
  return ok();
}

Status EndpointMappingReconciler::report(const json& em, const std::string& address,
                                         const std::string& path, bool ready,
                                         const std::string& reason, const std::string& message) {
  return kube::patch_ready_status(*host_.client, mapping_ref(em), em,
                                  {{"address", address.empty() ? json(nullptr) : json(address)},
                                   {"path", path.empty() ? json(nullptr) : json(path)}},
                                  ready, reason, message);
}

}  // namespace fed::federation

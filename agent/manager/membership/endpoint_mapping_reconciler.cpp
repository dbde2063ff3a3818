#include "agent/manager/membership/endpoint_mapping_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "agent/manager/ipam/address_blocks.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/kube/object_edits.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Request namespaces EndpointMappings (cluster-scoped, so ns is always empty) cannot have.
constexpr std::string_view kNatMappingKey = "NatMapping";       // name: a NatMapping's
constexpr std::string_view kPeerKey = "NatMappingsOfPeer";      // name: a peer's cluster id
constexpr std::string_view kSweepKey = "EndpointMappingsGone";  // the startup sweep

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
      nat_commit_([this] { return write_nat_mappings(); }) {
  mappings_.add_handlers({[this](const kube::ObjectPtr& o) { count_live(*o, +1); },
                          [this](const kube::ObjectPtr& before, const kube::ObjectPtr& now) {
                            count_live(*before, -1);
                            count_live(*now, +1);
                          },
                          [this](const kube::ObjectPtr& o) { count_live(*o, -1); }});
}

void EndpointMappingReconciler::count_live(const json& object, int delta) {
  if (object["metadata"].contains("deletionTimestamp")) return;
  std::lock_guard lock(live_mu_);
  const Target target{peer_of(object), endpoint_of(object)};
  if ((live_[target] += delta) <= 0) live_.erase(target);
}

std::vector<kube::Request> EndpointMappingReconciler::nat_mapping_request(const json& nm) {
  return {kube::Request{std::string(kNatMappingKey), nm["metadata"].value("name", "")}};
}

Result<kube::Requeue> EndpointMappingReconciler::reconcile(const kube::Request& request) {
  if (request.ns == kNatMappingKey) {
    FED_TRY(check_nat_mapping(request.name));
    return kube::Requeue{};
  }
  if (request.ns == kPeerKey) {
    FED_TRY(check_peer(request.name));
    return kube::Requeue{};
  }
  if (request.ns == kSweepKey) return sweep();
  auto object = mappings_.store().get("", request.name);
  if (!object) {
    FED_TRY(release(request.name));  // deleted
    return kube::Requeue{};
  }
  const json& em = *object;
  if (em["metadata"].contains("deletionTimestamp")) {
    // Gone once its other finalizers are; an older release's finalizer is this manager's to
    // take off, after releasing.
    if (!kube::has_finalizer(em, kLegacyEndpointFinalizer)) return kube::Requeue{};
    {
      // Not mapped by this manager if it started after the deletion: held now, so that the
      // release below counts the other holders of the same endpoint like any deletion.
      std::lock_guard lock(host_.ipam->mutex());
      hold(request.name, {peer_of(em), endpoint_of(em)});
    }
    FED_TRY(release(request.name));
    FED_TRY(
        kube::set_finalizer(*host_.client, mapping_ref(em), em, kLegacyEndpointFinalizer, false));
    return kube::Requeue{};
  }
  return map(em);
}

void EndpointMappingReconciler::hold(const std::string& name, const Target& target) {
  if (held_by_.emplace(name, target).second) ++holders_[target];
}

Status EndpointMappingReconciler::release(const std::string& name) {
  Target target;
  {
    std::lock_guard lock(host_.ipam->mutex());
    auto held = held_by_.find(name);
    if (held == held_by_.end()) return ok();
    target = held->second;
    held_by_.erase(held);
    if (--holders_[target] > 0) return ok();  // another EndpointMapping maps it too
    holders_.erase(target);
  }
  {
    std::lock_guard lock(live_mu_);
    if (live_.contains(target)) return ok();  // another one, not reconciled yet, maps it too
  }
  return unmap(target.first, target.second);
}

Result<kube::Requeue> EndpointMappingReconciler::sweep() {
  if (!mappings_.has_synced()) return kube::Requeue{1s};
  ClusterIpam& ipam = *host_.ipam;
  // Decided and unmapped under the IPAM's lock, from what is live and held at that moment: the
  // workers keep mapping EndpointMappings created since the informer's list, each held
  // (hold()) under this lock before it is mapped. A list read before taking the lock missed
  // those, and released addresses their objects had just been given.
  std::unique_lock lock(ipam.mutex());
  std::vector<Target> orphans;
  {
    std::lock_guard live(live_mu_);
    for (const auto& [peer, cluster] : ipam.ipam().snapshot(false).clusters) {
      auto set = ipam.ipam().nat_mapping(peer);
      if (!set) continue;
      for (const auto& [seen, endpoint] : set->mappings) {
        const Target target{peer, endpoint.str()};
        if (!live_.contains(target) && !holders_.contains(target)) orphans.push_back(target);
      }
    }
  }
  if (orphans.empty()) return kube::Requeue{};
  spdlog::info(
      "endpoint mappings: {} held in the IPAM by EndpointMappings deleted while no "
      "manager ran; releasing them",
      orphans.size());
  for (const auto& [peer, endpoint] : orphans) FED_TRY(unmap_locked(peer, endpoint));
  const auto change = ipam.ticket();
  lock.unlock();
  FED_TRY(ipam.save(change));
  FED_TRY(nat_commit_.commit());
  return kube::Requeue{};
}

Result<kube::Requeue> EndpointMappingReconciler::map(const json& em) {
  const std::string peer = peer_of(em);
  const std::string endpoint = endpoint_of(em);
  ClusterIpam& ipam = *host_.ipam;
  std::unique_lock lock(ipam.mutex());
  // Recorded first: its deletion releases what it holds, whatever this pass gets to.
  hold(em["metadata"].value("name", ""), {peer, endpoint});
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
  if (mapped->nat_changed) dirty_.insert({peer, ipam.block_of(mapped->external_ip)});
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

Result<bool> EndpointMappingReconciler::unmap_locked(const std::string& peer,
                                                     const std::string& endpoint) {
  ClusterIpam& ipam = *host_.ipam;
  auto unmapped = ipam.ipam().unmap_endpoint_ip(peer, endpoint);
  // A peer that left took its mappings with it (membership removes the cluster from the IPAM).
  if (!unmapped) {
    if (unmapped.error().code() == ErrorCode::NotFound) return false;
    return unmapped.error();
  }
  // Nothing changed: an earlier pass that stored the IPAM and failed before the NatMapping was
  // written left the block marked, and a restart checks every block (startup_requests).
  if (unmapped->external_ip) dirty_.insert({peer, ipam.block_of(*unmapped->external_ip)});
  return true;
}

Status EndpointMappingReconciler::unmap(const std::string& peer, const std::string& endpoint) {
  ClusterIpam& ipam = *host_.ipam;
  std::unique_lock lock(ipam.mutex());
  FED_ASSIGN_OR_RETURN(bool changed, unmap_locked(peer, endpoint));
  if (!changed) return ok();
  const auto change = ipam.ticket();
  lock.unlock();
  FED_TRY(ipam.save(change));
  return nat_commit_.commit();
}

Result<bool> EndpointMappingReconciler::mark_if_stale(const std::string& peer,
                                                      const net::Cidr& block) {
  const std::string name = fabric::ipam::nat_mapping_name(peer, block);
  auto stored = nat_mappings_.store().get("", name);
  const std::int64_t generation =
      stored ? (*stored)["metadata"].value("generation", std::int64_t{0}) : 0;
  // Decoded before taking the IPAM lock: the costly part.
  std::optional<fedapi::NatMappingSpec> stored_spec;
  if (stored) {
    auto spec = fedapi::decode<fedapi::NatMappingSpec>(stored->value("spec", json::object()),
                                                       "NatMapping " + name + " spec");
    if (spec) stored_spec = std::move(*spec);
  }
  std::lock_guard lock(host_.ipam->mutex());
  // The spec this manager wrote last (this event is its echo, or the gateway's status): any
  // IPAM change since has a write of its own on the way.
  if (stored && written_generation_[name] == generation) return false;
  auto set = host_.ipam->ipam().nat_mapping(peer, block);
  if (!set) return false;  // networking with the peer not complete: nothing mapped yet
  if (set->mappings.empty() ? !stored : stored_spec && *stored_spec == spec_of(*set)) return false;
  dirty_.insert({peer, block});
  return true;
}

Status EndpointMappingReconciler::check_nat_mapping(const std::string& name) {
  auto parsed = fabric::ipam::parse_nat_mapping_name(name);
  if (!parsed) {
    spdlog::warn("{}; left alone (the manager writes no such name)", parsed.error().message());
    return ok();
  }
  bool peered = false;
  {
    std::lock_guard lock(host_.ipam->mutex());
    peered = static_cast<bool>(host_.ipam->ipam().cluster(parsed->peer));
  }
  if (!peered) {
    if (!nat_mappings_.store().get("", name)) return ok();
    spdlog::info("NatMapping {}: the peer is not in the IPAM (it left); removing it", name);
    return kube::remove_if_present(*host_.client, fedapi::ref(fedapi::kNatMapping, name));
  }
  if (!parsed->block) return check_peer(parsed->peer);
  FED_ASSIGN_OR_RETURN(bool stale, mark_if_stale(parsed->peer, *parsed->block));
  // Lost or edited: written back from the IPAM.
  return stale ? nat_commit_.commit() : ok();
}

Status EndpointMappingReconciler::check_peer(const std::string& peer) {
  std::set<net::Cidr> blocks;
  {
    std::lock_guard lock(host_.ipam->mutex());
    auto set = host_.ipam->ipam().nat_mapping(peer);
    if (!set) return ok();  // gone, or networking not complete: nothing to write
    const auto& ours = host_.ipam->local().external_cidr;
    for (const auto& [seen, endpoint] : set->mappings) {
      blocks.insert(host_.ipam->block_of(net::map_ip_to_network(seen, ours)));
    }
  }
  bool legacy = false;
  for (const auto& object : nat_mappings_.store().list()) {
    auto parsed = fabric::ipam::parse_nat_mapping_name((*object)["metadata"].value("name", ""));
    if (!parsed || parsed->peer != peer) continue;
    if (parsed->block) blocks.insert(*parsed->block);
    legacy = legacy || !parsed->block;
  }
  bool stale = false;
  for (const auto& block : blocks) {
    FED_ASSIGN_OR_RETURN(bool b, mark_if_stale(peer, block));
    stale = stale || b;
  }
  if (stale) FED_TRY(nat_commit_.commit());
  if (!legacy) return ok();
  // An older release's one object for the peer: its blocks' objects now hold every entry.
  spdlog::info("NatMapping {}: replaced by one NatMapping per block ({}); removing it", peer,
               blocks.size());
  return kube::remove_if_present(*host_.client, fedapi::ref(fedapi::kNatMapping, peer));
}

std::vector<kube::Request> EndpointMappingReconciler::startup_requests() {
  std::vector<kube::Request> out;
  std::lock_guard lock(host_.ipam->mutex());
  for (const auto& [id, cluster] : host_.ipam->ipam().snapshot(false).clusters) {
    out.push_back(kube::Request{std::string(kPeerKey), id});
  }
  out.push_back(kube::Request{std::string(kSweepKey), ""});
  return out;
}

Status EndpointMappingReconciler::write_nat_mappings() {
  struct Write {
    std::string name;
    std::pair<std::string, net::Cidr> key;
    std::optional<fedapi::NatMappingSpec> spec;  // nullopt: the block holds nothing, delete
  };
  std::vector<Write> writes;
  {
    std::lock_guard lock(host_.ipam->mutex());
    for (const auto& key : std::exchange(dirty_, {})) {
      // A peer that left has no NatMapping to write (membership removed them).
      auto set = host_.ipam->ipam().nat_mapping(key.first, key.second);
      if (!set) continue;
      writes.push_back({fabric::ipam::nat_mapping_name(key.first, key.second), key,
                        set->mappings.empty() ? std::nullopt : std::optional(spec_of(*set))});
    }
  }
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const auto& w = writes[i];
    const auto ref = fedapi::ref(fedapi::kNatMapping, w.name);
    kube::ApiResult<json> applied = json::object();
    if (w.spec) {
      json object{{"apiVersion", std::string(fedapi::kApiVersion)},
                  {"kind", std::string(fedapi::kNatMapping.kind)},
                  {"metadata",
                   {{"name", w.name},
                    {"labels",
                     {{"app.kubernetes.io/part-of", "kubectl-fed"},
                      {std::string(fedapi::kClusterIdLabel), w.key.first}}}}},
                  {"spec", *w.spec}};
      applied =
          host_.client->apply(ref, object, kube::ApplyOptions{std::string(kFieldManager), true});
    } else if (auto removed = kube::remove_if_present(*host_.client, ref); !removed) {
      applied = kube::ApiError::from_error(removed.error());
    }
    std::lock_guard lock(host_.ipam->mutex());
    if (!applied) {
      for (std::size_t j = i; j < writes.size(); ++j) dirty_.insert(writes[j].key);
      return applied.error().to_error().with_context("NatMapping " + w.name);
    }
    if (w.spec) {
      written_generation_[w.name] = (*applied)["metadata"].value("generation", std::int64_t{0});
    } else {
      written_generation_.erase(w.name);
    }
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

#include "agent/manager/offload/namespaces/offloading_reconciler.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <set>

#include "agent/manager/offload/namespaces/offloading_phase.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/namespace_map.hpp"
#include "shared/kube/object_edits.hpp"
#include "shared/offload/node_selector_match.hpp"
#include "shared/offload/remote_namespace.hpp"
#include "shared/util/parallel_for.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

// NamespaceMap patches in flight at once for one offloading (within the host client's burst).
constexpr std::size_t kParallelWrites = 16;

std::string cluster_of(const json& virtual_node) {
  return virtual_node["metadata"]
      .value("labels", json::object())
      .value(std::string(fedapi::kClusterIdLabel), "");
}

// What member `cluster_id`'s NamespaceMap (null when absent) says about namespace `ns`.
ClusterMapping mapping_in(const json& namespace_map, const std::string& ns) {
  ClusterMapping m;
  if (!namespace_map.is_object()) return m;
  const json desired =
      namespace_map.value("spec", json::object()).value("desiredMapping", json::object());
  m.desired = desired.contains(ns);
  const json current =
      namespace_map.value("status", json::object()).value("currentMapping", json::object());
  if (current.contains(ns)) {
    auto entry = fedapi::decode<fedapi::RemoteNamespaceStatus>(current[ns], "currentMapping." + ns);
    if (entry) {
      m.phase = entry->phase;
      m.remote_namespace = entry->remote_namespace;
    }
  }
  return m;
}

}  // namespace

OffloadingReconciler::OffloadingReconciler(std::shared_ptr<kube::DynamicClient> host,
                                           std::string host_cluster_id,
                                           OffloadingInformers informers,
                                           kube::EventRecorder* events)
    : host_(std::move(host)),
      host_id_(std::move(host_cluster_id)),
      in_(informers),
      events_(events),
      departure_(host_) {}

std::vector<kube::Request> OffloadingReconciler::namespace_of(const json& object) {
  const json& meta = object["metadata"];
  // A NamespaceOffloading names its namespace in metadata.namespace, a Namespace in its name.
  std::string ns = meta.value("namespace", "");
  if (ns.empty()) ns = meta.value("name", "");
  return {kube::Request{"", ns}};
}

std::vector<kube::Request> OffloadingReconciler::namespaces_changed_in_map(
    const json& namespace_map) {
  const std::string member = namespace_map["metadata"].value("name", "");
  const json desired =
      namespace_map.value("spec", json::object()).value("desiredMapping", json::object());
  const json current =
      namespace_map.value("status", json::object()).value("currentMapping", json::object());
  std::map<std::string, json> entries;
  for (const auto& [ns, value] : desired.items()) entries[ns]["desired"] = value;
  for (const auto& [ns, value] : current.items()) entries[ns]["current"] = value;
  std::vector<kube::Request> out;
  std::lock_guard lock(seen_mu_);
  if (!in_.namespace_maps.store().get("", member)) {  // deleted (gone from the cache first)
    for (const auto& [ns, _] : entries) out.push_back(kube::Request{"", ns});
    seen_entries_.erase(member);
    return out;
  }
  auto& seen = seen_entries_[member];
  // Called with the old and then the new version of an update: the old one matches what was
  // seen and maps to nothing, unless a version was missed — then it is reconciled too.
  for (const auto& [ns, entry] : entries) {
    auto it = seen.find(ns);
    if (it == seen.end() || it->second != entry) out.push_back(kube::Request{"", ns});
  }
  for (const auto& [ns, _] : seen) {
    if (entries.count(ns) == 0) out.push_back(kube::Request{"", ns});
  }
  seen = std::move(entries);
  return out;
}

std::vector<kube::Request> OffloadingReconciler::every_offloading(const json&) const {
  std::vector<kube::Request> out;
  for (const auto& o : in_.offloadings.store().list()) {
    out.push_back(kube::Request{"", (*o)["metadata"].value("namespace", "")});
  }
  return out;
}

Result<kube::Requeue> OffloadingReconciler::reconcile(const kube::Request& request) {
  const std::string& ns = request.name;
  auto object = in_.offloadings.store().get(ns, std::string(kOffloadingName));
  if (!object) {
    FED_TRY(ensure_default_offloading(ns));
    return kube::Requeue{};
  }
  const json& off = *object;
  const auto ref = fedapi::ref_in(fedapi::kNamespaceOffloading, ns, std::string(kOffloadingName));
  const bool deleting = off["metadata"].contains("deletionTimestamp");
  const bool finalized = kube::has_finalizer(off, kOffloadingFinalizer);
  if (!deleting && !finalized) {
    // On before any NamespaceMap entry exists, so no delete can leave a replica behind. The
    // work goes on in this pass rather than after the finalizer's own event: that wait added
    // a round trip to every offloading. (The status write below then meets a Conflict, which
    // replace_status resolves.)
    FED_TRY(kube::set_finalizer(*host_, ref, off, kOffloadingFinalizer, true));
  }
  if (deleting && !finalized) return kube::Requeue{};

  fedapi::NamespaceOffloadingStatus status;
  if (off.contains("status")) {
    auto previous = fedapi::decode<fedapi::NamespaceOffloadingStatus>(off["status"], "status");
    if (previous) status = std::move(*previous);
  }
  const fedapi::NamespaceOffloadingStatus before = status;
  // The members: one NamespaceMap per member, created with its virtual node.
  std::map<std::string, json> maps;
  for (const auto& m : in_.namespace_maps.store().list()) {
    maps[(*m)["metadata"].value("name", "")] = *m;
  }
  std::string remote;
  std::set<std::string> selected;
  std::string refusal;  // why nothing can be offloaded under the spec, if so
  if (!deleting) {
    auto spec =
        fedapi::decode<fedapi::NamespaceOffloadingSpec>(off.value("spec", json::object()), "spec");
    auto name =
        spec ? remote_namespace_name(*spec, ns, host_id_) : Result<std::string>(spec.error());
    refusal = name ? std::string() : name.error().message();
    if (!name) {
      // Nothing can be offloaded under this spec; say why and select nothing.
      spdlog::warn("NamespaceOffloading {}/offloading: {}", ns, name.error().message());
      if (events_ != nullptr) {
        events_->record({std::string(fedapi::kApiVersion), "NamespaceOffloading", ns,
                         off["metadata"].value("name", ""), off["metadata"].value("uid", "")},
                        kube::EventType::Warning, "SpecRefused", name.error().message());
      }
    } else {
      remote = *name;
      const auto selector = spec->effective_cluster_selector();
      for (const auto& vn : in_.virtual_nodes.store().list()) {
        auto hit = matches(selector, facts_of(*vn), "spec.clusterSelector.nodeSelectorTerms");
        if (hit && *hit && !cluster_of(*vn).empty()) selected.insert(cluster_of(*vn));
      }
    }
  }
  // One patch per member whose NamespaceMap disagrees, side by side: offloading to 50 members
  // waited for 50 round trips in a row (E3, docs/BENCHMARKS.md).
  std::vector<std::pair<std::string, std::string>> writes;  // member, remote ("": none)
  bool moving = false;  // pods still leaving a member no longer selected
  for (const auto& [id, map] : maps) {
    const bool want = selected.count(id) != 0;
    const json desired = map.value("spec", json::object()).value("desiredMapping", json::object());
    if (want || deleting) departure_.forget(id, ns);
    if (want ? desired.value(ns, "") == remote : !desired.contains(ns)) continue;
    if (!want && !deleting) {  // unselected, not unoffloaded: the pods there move first
      FED_ASSIGN_OR_RETURN(auto departure, departure_.step(id, ns));
      if (departure == Departure::Moving) {
        moving = true;
        continue;
      }
    }
    writes.emplace_back(id, want ? remote : "");
  }
  std::vector<Status> written(writes.size(), ok());
  util::parallel_for(writes.size(), kParallelWrites, [&](std::size_t i) {
    written[i] = set_desired(writes[i].first, ns, writes[i].second);
  });
  for (auto& w : written) FED_TRY(std::move(w));

  // OffloadingStatus: per member, from its NamespaceMap (as just written: desired is `want`).
  const std::string now = util::format_rfc3339(std::chrono::system_clock::now());
  std::map<std::string, std::vector<fedapi::Condition>> conditions;
  for (const auto& [id, map] : maps) {
    ClusterMapping m = mapping_in(map, ns);
    m.desired = selected.count(id) != 0;
    if (!m.desired && !m.phase) continue;  // never selected, nothing there: no conditions
    if (m.remote_namespace.empty()) m.remote_namespace = remote;
    auto previous = status.remote_namespaces_conditions[id];
    conditions[id] = remote_conditions(m, id, previous, now);
  }
  status.remote_namespaces_conditions = conditions;
  status.remote_namespace_name = remote.empty() ? status.remote_namespace_name : remote;
  status.offloading_phase = offloading_phase(conditions, deleting ? Deleting::Yes : Deleting::No);
  status.observed_generation = off["metadata"].value("generation", std::int64_t{0});
  // The phase alone would say NoClusterSelected; the status says the spec was refused, and why.
  if (refusal.empty()) {
    status.conditions.clear();
  } else {
    fedapi::set_condition(
        status.conditions,
        {"Accepted", "False", "SpecRefused", refusal, "", status.observed_generation}, now);
  }

  if (deleting) {
    bool replicas_left = false;
    for (const auto& [id, map] : maps) replicas_left |= mapping_in(map, ns).phase.has_value();
    if (!replicas_left) {
      spdlog::info("namespace {}: every replica is gone, the offloading ends", ns);
      FED_TRY(kube::set_finalizer(*host_, ref, off, kOffloadingFinalizer, false));
      return kube::Requeue{};
    }
  }
  // Compared decoded, not as JSON: a status the server normalised differently must not make
  // every write trigger another.
  if (status != before) FED_TRY(report(off, std::move(status)));
  return kube::Requeue{moving ? std::chrono::seconds(2) : std::chrono::seconds(0)};
}

Status OffloadingReconciler::set_desired(const std::string& cluster_id, const std::string& ns,
                                         const std::string& remote) {
  json patch{{"spec", {{"desiredMapping", {{ns, remote.empty() ? json(nullptr) : json(remote)}}}}}};
  auto r = host_->patch(fedapi::ref(fedapi::kNamespaceMap, cluster_id), kube::PatchType::Merge,
                        patch.dump());
  if (!r) {
    return r.error().to_error().with_context("NamespaceMap " + cluster_id);
  }
  spdlog::info("NamespaceMap {}: {} {}", cluster_id, ns,
               remote.empty() ? std::string("no longer offloaded") : "offloaded as " + remote);
  return ok();
}

Status OffloadingReconciler::report(const json& off, fedapi::NamespaceOffloadingStatus status) {
  json want = status;
  // The whole status, conditions map included: a cluster no longer listed must go, which a
  // merge patch would only do with explicit nulls.
  auto r = kube::replace_status(
      *host_,
      fedapi::ref_in(fedapi::kNamespaceOffloading, off["metadata"].value("namespace", ""),
                     std::string(kOffloadingName)),
      off, want);
  if (!r && !r.error().is_not_found()) {
    return r.error().to_error().with_context("NamespaceOffloading status");
  }
  return ok();
}

Status OffloadingReconciler::ensure_default_offloading(const std::string& ns) {
  auto object = in_.namespaces.store().get("", ns);
  if (!object) return ok();
  const json labels = (*object)["metadata"].value("labels", json::object());
  if (labels.value(std::string(kEnabledLabel), "") != "true") return ok();
  if ((*object)["metadata"].contains("deletionTimestamp")) return ok();
  // The spec's defaults: DefaultName, LocalAndRemote, every virtual node.
  json off{{"apiVersion", std::string(fedapi::kApiVersion)},
           {"kind", std::string(fedapi::kNamespaceOffloading.kind)},
           {"metadata",
            {{"name", std::string(kOffloadingName)},
             {"namespace", ns},
             {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
           {"spec", fedapi::NamespaceOffloadingSpec{}}};
  auto created =
      host_->create(fedapi::ref_in(fedapi::kNamespaceOffloading, ns, "").collection(), off);
  if (!created && !created.error().is_already_exists()) {
    return created.error().to_error().with_context("the default NamespaceOffloading of " + ns);
  }
  if (created)
    spdlog::info("namespace {} is labelled {}=true: default offloading created", ns, kEnabledLabel);
  return ok();
}

}  // namespace fed::offload

#include "agent/manager/ha/state_restore.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/ha/replicated_kinds.hpp"

namespace fed::ha {
namespace {

using nlohmann::json;
using Objects = LiveObjects;

constexpr int kAttempts = 5;

// The federation's objects of every replicated kind on the host, as listed now.
Result<Objects> list_live(kube::DynamicClient& host) {
  Objects live;
  for (const auto& kind : replicated_kinds()) {
    kube::ListOptions options;
    options.label_selector = kind.label_selector;
    auto list = host.list_all(kind.collection, options);
    if (!list) return list.error().to_error();
    for (const auto& item : (*list).value("items", json::array())) {
      live.emplace_back(state_key_of(kind, item), typed(kind, item));
    }
  }
  return live;
}

Result<const ReplicatedKind*> kind_of(const StateKey& key) {
  const ReplicatedKind* kind = replicated_kind_named(key.kind);
  if (kind == nullptr) {
    return fail(ErrorCode::Invalid, "the federation etcd holds " + to_string(key) +
                                        ", of a kind this manager does not replicate: upgrade it");
  }
  return kind;
}

kube::ResourceRef ref_of(const ReplicatedKind& kind, const StateKey& key) {
  kube::ResourceRef ref = kind.collection;
  ref.ns = key.ns;
  ref.name = key.name;
  return ref;
}

// The object's status as stored, through the status subresource (a create or update of the
// main resource ignores it for kinds that have one). Kinds without one store none.
Status write_status(kube::DynamicClient& host, const kube::ResourceRef& ref, json written,
                    const json& stored) {
  if (!stored.contains("status")) return ok();
  written["status"] = stored["status"];
  auto r = host.update_status(ref, written);
  if (!r) return r.error().to_error();
  return ok();
}

enum class Outcome { Done, Conflict };

// Creates, updates or deletes one object of the plan; a Conflict (changed or created since
// the list) is the caller's cue to re-plan.
Result<Outcome> apply_one(kube::DynamicClient& host, const StateKey& key, const json* object,
                          bool create) {
  FED_ASSIGN_OR_RETURN(const ReplicatedKind* kind, kind_of(key));
  const kube::ResourceRef ref = ref_of(*kind, key);
  if (object == nullptr) {
    auto r = host.remove(ref);
    if (!r && !r.error().is_not_found()) return r.error().to_error();
    return Outcome::Done;
  }
  auto written = create ? host.create(ref.named(""), *object) : host.update(ref, *object);
  if (!written && written.error().is_conflict()) return Outcome::Conflict;
  if (!written) return written.error().to_error();
  FED_TRY(write_status(host, ref, *written, *object));
  return Outcome::Done;
}

// Applies `plan`; true when every step was done, false on a Conflict.
Result<bool> apply_plan(kube::DynamicClient& host, const RestorePlan& plan,
                        RestoreSummary& summary) {
  for (const auto& [key, object] : plan.create) {
    FED_ASSIGN_OR_RETURN(auto outcome, apply_one(host, key, &object, true));
    if (outcome == Outcome::Conflict) return false;
    ++summary.created;
  }
  for (const auto& [key, object] : plan.update) {
    FED_ASSIGN_OR_RETURN(auto outcome, apply_one(host, key, &object, false));
    if (outcome == Outcome::Conflict) return false;
    ++summary.updated;
  }
  for (const auto& [key, object] : plan.update_status) {
    FED_ASSIGN_OR_RETURN(const ReplicatedKind* kind, kind_of(key));
    auto written = host.update_status(ref_of(*kind, key), object);
    if (!written && written.error().is_conflict()) return false;
    if (!written) return written.error().to_error();
    ++summary.updated;
  }
  for (const auto& key : plan.remove) {
    FED_TRY(apply_one(host, key, nullptr, false));
    ++summary.removed;
  }
  return true;
}

Result<RestoreSummary> seed(StateStore& store, const Objects& live) {
  RestoreSummary summary;
  summary.seeded = true;
  for (const auto& [key, object] : live) {
    FED_TRY(store.put(key, object));
    ++summary.copied;
  }
  return summary;
}

}  // namespace

std::string to_string(const RestoreSummary& s) {
  if (s.seeded) return "seeded the federation etcd with " + std::to_string(s.copied) + " objects";
  return "restored from the federation etcd: " + std::to_string(s.created) + " created, " +
         std::to_string(s.updated) + " updated, " + std::to_string(s.removed) + " deleted";
}

Result<RestoreSummary> restore_host_state(kube::DynamicClient& host, StateStore& store,
                                          StateMirror& mirror, const CachedObjects& cached) {
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    FED_ASSIGN_OR_RETURN(auto stored, store.load());
    Result<Objects> read = fail(ErrorCode::Unavailable, "not read");
    if (attempt == 1 && cached) read = cached();
    if (!read) read = list_live(host);
    FED_ASSIGN_OR_RETURN(auto live, std::move(read));
    if (stored.empty()) {
      FED_ASSIGN_OR_RETURN(auto summary, seed(store, live));
      FED_ASSIGN_OR_RETURN(stored, store.load());
      mirror.reset(stored);
      return summary;
    }
    RestoreSummary summary;
    FED_ASSIGN_OR_RETURN(bool done, apply_plan(host, plan_restore(stored, live), summary));
    if (done) {
      mirror.reset(stored);
      return summary;
    }
    spdlog::info("state: an object changed while it was restored; listing again (attempt {})",
                 attempt);
  }
  return fail(ErrorCode::Unavailable,
              "the host's federation objects kept changing while they "
              "were restored from the federation etcd");
}

}  // namespace fed::ha

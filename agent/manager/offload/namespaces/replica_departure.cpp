#include "agent/manager/offload/namespaces/replica_departure.hpp"

#include <spdlog/spdlog.h>

#include <set>
#include <vector>

#include "shared/kube/label_selector.hpp"
#include "shared/kube/pod_phase.hpp"
#include "shared/offload/virtual_node_name.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

const kube::GroupVersionResource kBudgets{"policy", "v1", "poddisruptionbudgets"};

std::string id_of(const json& pod) {
  return pod["metadata"].value("namespace", "") + "/" + pod["metadata"].value("name", "");
}

}  // namespace

std::optional<std::string> budget_holding(const json& budgets, const json& pod) {
  const json labels = pod["metadata"].value("labels", json::object());
  for (const auto& pdb : budgets) {
    auto selector = kube::LabelSelector::from_json(
        pdb.value("spec", json::object()).value("selector", json(nullptr)));
    // A selector the API server accepted but this cannot read: count it as holding, since
    // taking the pod might break the budget.
    if (selector && !selector->matches_json(labels)) continue;
    const json status = pdb.value("status", json::object());
    const auto allowed = status.value("disruptionsAllowed", 0);
    if (allowed >= 1) continue;
    return pdb["metadata"].value("name", "") + " (" + std::to_string(allowed) +
           " disruptions allowed)";
  }
  return std::nullopt;
}

ReplicaDeparture::ReplicaDeparture(std::shared_ptr<kube::DynamicClient> host)
    : host_(std::move(host)) {}

void ReplicaDeparture::forget(const std::string& member, const std::string& ns) {
  std::lock_guard lock(mu_);
  moves_.erase({member, ns});
}

Result<Departure> ReplicaDeparture::step(const std::string& member, const std::string& ns) {
  const Key key{member, ns};
  Move* move = nullptr;
  {
    std::lock_guard lock(mu_);
    auto [it, fresh] = moves_.try_emplace(key);
    if (fresh) it->second.began = std::chrono::steady_clock::now();
    move = &it->second;  // stable: only the reconcile of `ns` touches this entry
  }
  auto result = advance(key, *move);
  if (result && *result == Departure::Done) forget(member, ns);
  return result;
}

Result<Departure> ReplicaDeparture::advance(const Key& key, Move& move) {
  const auto& [member, ns] = key;
  if (std::chrono::steady_clock::now() - move.began > kDepartureBudget) {
    spdlog::warn(
        "namespace {}: its pods did not all leave member {} within {} s{}; its replica there "
        "goes now, with what still runs in it",
        ns, member, kDepartureBudget.count(),
        move.held_by.empty() ? "" : " (budget " + move.held_by + ")");
    return Departure::Done;
  }
  if (move.replacing) {
    FED_ASSIGN_OR_RETURN(auto short_of_ready, kube::owner_short_of_ready(*host_, *move.replacing));
    if (short_of_ready) return Departure::Moving;
    move.replacing.reset();
  }
  kube::ListOptions on_member;
  on_member.field_selector = "spec.nodeName=" + virtual_node_name(member);
  auto listed = host_->list_all(kube::kPods.in_namespace(ns), on_member);
  if (!listed) return listed.error().to_error().with_context("listing the pods of " + ns);
  std::vector<json> staying;
  // The workloads of pods leaving already (out of the Services): what counts is their
  // replacement, not how long a container takes to stop (30 s for one that ignores SIGTERM).
  // This also covers a pod taken before the manager restarted. Each read once.
  std::set<kube::PodOwner> leaving;
  for (const auto& pod : (*listed)["items"]) {
    if (kube::pod_finished(pod)) continue;
    if (!pod["metadata"].contains("deletionTimestamp")) {
      staying.push_back(pod);
    } else if (auto owner = kube::controller_of(pod)) {
      leaving.insert(std::move(*owner));
    }
  }
  for (const auto& owner : leaving) {
    FED_ASSIGN_OR_RETURN(auto short_of_ready, kube::owner_short_of_ready(*host_, owner));
    if (short_of_ready) return Departure::Moving;
  }
  if (staying.empty()) return Departure::Done;

  const json& pod = staying.front();
  auto budgets = host_->list_all(kube::ResourceRef{kBudgets, ns, "", ""});
  if (!budgets) return budgets.error().to_error().with_context("listing the budgets of " + ns);
  if (auto held = budget_holding((*budgets)["items"], pod)) {
    if (*held != move.held_by) {
      spdlog::info("namespace {}: pod {} stays on member {} for now: budget {}", ns, id_of(pod),
                   member, *held);
      move.held_by = *held;
    }
    return Departure::Moving;
  }
  kube::DeleteOptions only_this;
  only_this.precondition_uid = pod["metadata"].value("uid", "");
  auto removed = host_->remove(
      kube::kPods.in_namespace(ns).named(pod["metadata"].value("name", "")), only_this);
  if (!removed && !removed.error().is_not_found() && !removed.error().is_conflict()) {
    return removed.error().to_error().with_context("moving pod " + id_of(pod));
  }
  spdlog::info(
      "namespace {}: member {} is no longer selected: pod {} leaves it ({} left there), its "
      "replacement goes where the offloading now places it",
      ns, member, id_of(pod), staying.size() - 1);
  move.replacing = kube::controller_of(pod);
  move.held_by.clear();
  return Departure::Moving;
}

}  // namespace fed::offload

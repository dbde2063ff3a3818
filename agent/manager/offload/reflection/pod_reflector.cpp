#include "agent/manager/offload/reflection/pod_reflector.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/offload/namespaces/accepted_replicas.hpp"
#include "agent/manager/offload/reflection/member_reachability.hpp"
#include "shared/util/rfc3339.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

// While a twin or a host pod is going away, look again this soon.
constexpr std::chrono::seconds kSettle{2};
// A host pod being deleted leaves its Services' endpoints at once, but the EndpointSlice
// controller and then kube-proxy on every node of the host apply that later — within kube-proxy's
// 1 s sync period when idle, later on a busy node (with 2 s here, one request of 209 failed in
// an e2e unoffload on the two-core testbed): its twin is stopped only this long after the
// deletion began, so that no request is still sent to it (a kubelet's pod has the same race,
// which a preStop sleep covers; an offloaded pod's endpoints live on another cluster).
constexpr std::chrono::seconds kEndpointsDrain{5};

// How long until `pod`'s twin may stop: zero unless its deletion began less than
// kEndpointsDrain ago (deletionTimestamp is the deletion's start plus its grace period).
std::chrono::milliseconds twin_stop_wait(const json& pod) {
  const auto& meta = pod["metadata"];
  auto at = util::parse_rfc3339(meta.value("deletionTimestamp", ""));
  if (!at) return std::chrono::milliseconds(0);
  const std::chrono::seconds grace{meta.value("deletionGracePeriodSeconds", std::int64_t{0})};
  const auto stop_at = *at - grace + kEndpointsDrain;
  const auto now = std::chrono::system_clock::now();
  if (now >= stop_at) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(stop_at - now) +
         std::chrono::milliseconds(1);
}

bool deleting(const json& object) {
  return object["metadata"].contains("deletionTimestamp");
}

std::string uid_of(const json& object) {
  return object["metadata"].value("uid", "");
}

}  // namespace

PodReflector::PodReflector(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
                           kube::Informer& namespace_maps, kube::Informer& host_peerings,
                           MemberClient member_client, MemberPodIpTranslator translate,
                           FreshReplicas& fresh)
    : host_(std::move(host)),
      host_id_(std::move(host_cluster_id)),
      maps_(namespace_maps),
      peerings_(host_peerings),
      member_client_(std::move(member_client)),
      translate_(std::move(translate)),
      fresh_(fresh) {}

PodReflector::~PodReflector() {
  stop();
}

void PodReflector::attach(kube::Controller& controller) {
  watches_ = std::make_unique<ReflectionWatches>(host_, host_id_, controller, fresh_);
  controller_ = &controller;
  const auto member_of = [](const json& object) {
    return std::vector<kube::Request>{{"", object["metadata"].value("name", "")}};
  };
  controller.watch(maps_, member_of);
  controller.watch(peerings_, member_of);
}

void PodReflector::stop() {
  if (watches_) watches_->stop();
}

Result<kube::Requeue> PodReflector::reconcile(const kube::Request& request) {
  if (request.ns.empty()) return sync_member(request.name);
  return reflect(request.ns, request.name);
}

Result<kube::Requeue> PodReflector::sync_member(const std::string& id) {
  follow_reachability(id);
  auto nm = maps_.store().get("", id);
  if (!nm) {
    watches_->forget(id);
    return kube::Requeue{};
  }
  auto client = member_client_(id);
  if (!client) return kube::Requeue{kRecheck};  // not peered yet
  watches_->sync(id, *client, accepted_replicas(*nm));
  return kube::Requeue{kRecheck};  // a rejoin brings a new client without a NamespaceMap event
}

Result<kube::Requeue> PodReflector::reflect(const std::string& ns, const std::string& name) {
  const auto host = watches_->host_pod(ns, name);
  bool settling = false;
  // A twin stays only while it stands for the live host pod, on the member the pod is bound to.
  for (const auto& id : watches_->members_replicating(ns)) {
    auto twin = watches_->twin(id, ns, name);
    if (!twin || !twin->pod) continue;
    const bool own =
        host && host->member == id && twin_origin_uid(*twin->pod) == uid_of(*host->pod);
    if (own && !deleting(*host->pod)) continue;
    if (own) {
      if (const auto wait = twin_stop_wait(*host->pod); wait.count() > 0) {
        return kube::Requeue{wait};
      }
    }
    std::optional<std::int64_t> grace;
    if (host && (*host->pod)["metadata"].contains("deletionGracePeriodSeconds")) {
      grace = (*host->pod)["metadata"]["deletionGracePeriodSeconds"].get<std::int64_t>();
    }
    FED_TRY(delete_twin(*twin, grace));
    settling = true;
  }
  if (!host) return kube::Requeue{settling ? kSettle : std::chrono::seconds(0)};
  const json& pod = *host->pod;
  if (deleting(pod)) {
    if (settling) return kube::Requeue{kSettle};
    // The twin is gone: finish the deletion, as a kubelet would once its containers stopped.
    kube::DeleteOptions now;
    now.grace_period_seconds = 0;
    now.precondition_uid = uid_of(pod);
    auto removed = host_->remove(kube::kPods.in_namespace(ns).named(name), now);
    if (!removed && !removed.error().is_not_found() && !removed.error().is_conflict()) {
      return removed.error().to_error().with_context("finalizing pod " + ns + "/" + name);
    }
    spdlog::info("pod reflection: {}/{} deleted on {} and here", ns, name, host->member);
    return kube::Requeue{};
  }
  watches_->watch_twins(host->member, ns);
  auto twin = watches_->twin(host->member, ns, name);
  if (!twin) {  // not (yet) replicated there: stays Pending, and says why
    FED_TRY(write_unplaced(pod, "namespace " + ns + " has no replica on " + host->member +
                                    " (its NamespaceOffloading does not select " + host->member +
                                    ", or the replica is not ready yet)"));
    return kube::Requeue{kRecheck};
  }
  if (twin->pod && deleting(*twin->pod)) {
    // Stopped on the member (a drain there evicted it): its endpoints leave now, while its
    // preStop still answers, not when a new twin reports with another address.
    FED_TRY(replace_status(
        pod,
        not_ready_pod_status(pod.value("status", json::object()), kTwinStoppingReason,
                             "its twin on " + host->member + " is stopping; a new twin replaces it",
                             util::format_rfc3339(std::chrono::system_clock::now()))));
    return kube::Requeue{kSettle};
  }
  if (settling) return kube::Requeue{kSettle};
  if (!twin->pod) {
    json made = twin_pod(pod, TwinTarget{host_id_, ns, twin->replica});
    auto created = twin->client->create(kube::kPods.in_namespace(twin->replica), made);
    if (!created) {
      if (created.error().is_already_exists()) return kube::Requeue{kSettle};  // not seen yet
      return created.error().to_error().with_context("creating the twin of " + ns + "/" + name +
                                                     " in " + twin->replica + " on " +
                                                     host->member);
    }
    spdlog::info("pod reflection: {}/{} runs as {}/{} on {}", ns, name, twin->replica, name,
                 host->member);
    return kube::Requeue{};  // its events bring it back here
  }
  FED_TRY(write_status(pod, *twin));
  return kube::Requeue{};
}

void PodReflector::follow_reachability(const std::string& id) {
  const auto peering = peerings_.store().get("", id);
  const auto why = unreachable_reason(peering.get());
  {
    std::lock_guard lock(mu_);
    const auto it = unreachable_.find(id);
    const bool was = it != unreachable_.end();
    if (was == why.has_value() && (!why || it->second == *why)) return;
    if (why) {
      unreachable_[id] = *why;
    } else {
      unreachable_.erase(it);
    }
  }
  const auto pods = watches_->host_pods_of(id);
  if (why) {
    spdlog::warn("pod reflection: member {} unreachable: its {} pod(s) here are not Ready: {}", id,
                 pods.size(), *why);
  } else {
    spdlog::info("pod reflection: member {} reachable again: its {} pod(s) here follow their twins",
                 id, pods.size());
  }
  for (const auto& [ns, name] : pods) controller_->queue().add(kube::Request{ns, name});
}

std::optional<std::string> PodReflector::unreachable(const std::string& id) const {
  std::lock_guard lock(mu_);
  const auto it = unreachable_.find(id);
  if (it == unreachable_.end()) return std::nullopt;
  return it->second;
}

Status PodReflector::delete_twin(const ReflectionWatches::Twin& twin,
                                 std::optional<std::int64_t> grace_seconds) {
  if (deleting(*twin.pod)) return ok();
  kube::DeleteOptions options;
  options.grace_period_seconds = grace_seconds;
  options.precondition_uid = uid_of(*twin.pod);
  const std::string name = (*twin.pod)["metadata"].value("name", "");
  auto removed = twin.client->remove(kube::kPods.in_namespace(twin.replica).named(name), options);
  if (!removed && !removed.error().is_not_found() && !removed.error().is_conflict()) {
    return removed.error().to_error().with_context("deleting twin " + twin.replica + "/" + name +
                                                   " on " + twin.member);
  }
  spdlog::info("pod reflection: deleting twin {}/{} on {}", twin.replica, name, twin.member);
  return ok();
}

Status PodReflector::write_status(const json& host_pod, const ReflectionWatches::Twin& twin) {
  json status = host_pod_status(*twin.pod, host_pod.value("status", json::object()),
                                [&](std::string_view ip) { return translate_(twin.member, ip); });
  // The twin's last known status says Ready, but nothing here reaches it any more.
  if (const auto why = unreachable(twin.member)) {
    status = unreachable_pod_status(std::move(status), *why,
                                    util::format_rfc3339(std::chrono::system_clock::now()));
  }
  return replace_status(host_pod, std::move(status));
}

Status PodReflector::write_unplaced(const json& host_pod, const std::string& message) {
  json status = host_pod.value("status", json::object());
  status["phase"] = "Pending";
  status["reason"] = std::string(kNotReplicatedReason);
  status["message"] = message;
  return replace_status(host_pod, std::move(status));
}

Status PodReflector::replace_status(const json& host_pod, json status) {
  if (status == host_pod.value("status", json::object())) return ok();
  json updated = host_pod;
  updated["status"] = std::move(status);
  const auto& meta = host_pod["metadata"];
  auto written = host_->update_status(
      kube::kPods.in_namespace(meta.value("namespace", "")).named(meta.value("name", "")), updated);
  if (!written) {
    return written.error().to_error().with_context("status of pod " + meta.value("namespace", "") +
                                                   "/" + meta.value("name", ""));
  }
  return ok();
}

}  // namespace fed::offload

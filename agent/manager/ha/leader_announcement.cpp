#include "agent/manager/ha/leader_announcement.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "shared/fedapi/cluster_info.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/names.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/event_recorder.hpp"
#include "shared/kube/interruptible_sleep.hpp"

namespace fed::ha {

std::string format_seconds(std::chrono::nanoseconds d, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, std::chrono::duration<double>(d).count());
  return text;
}

nlohmann::json leader_configmap(const LeaderAnnouncement& a) {
  nlohmann::json data = {{"holder", a.holder},
                         {"host", a.host},
                         {"epoch", std::to_string(a.epoch)},
                         {"since", a.since},
                         {"role", a.published_by_leader ? "leader" : "follower"}};
  if (a.failover) data["failoverSeconds"] = format_seconds(*a.failover, 3);
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", std::string(fedapi::kLeaderConfigMap)},
            {"namespace", std::string(fedapi::kNamespace)},
            {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
          {"data", data}};
}

nlohmann::json leader_object(const LeaderAnnouncement& a) {
  nlohmann::json spec = leader_configmap(a)["data"];
  spec.erase("failoverSeconds");
  return {{"apiVersion", std::string(fedapi::kApiVersion)},
          {"kind", std::string(fedapi::kFederationLeader.kind)},
          {"metadata",
           {{"name", std::string(kLeaderObject)},
            {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
          {"spec", spec}};
}

std::string leader_event_message(const LeaderAnnouncement& a) {
  std::string message = a.holder + " on host " + a.host + " leads the federation";
  if (a.epoch == 0) return message + " (no leader election)";
  message += " (epoch " + std::to_string(a.epoch) + ")";
  if (a.failover) message += " after " + format_seconds(*a.failover, 2) + " s without a leader";
  return message;
}

Result<nlohmann::json> apply_leader(kube::DynamicClient& client, const LeaderAnnouncement& a) {
  // Forced: an object edited by hand, or written by an older manager, is taken over.
  const kube::ApplyOptions options{std::string(kLeaderFieldManager), true};
  auto applied = client.apply(federation::configmap_ref(fedapi::kLeaderConfigMap),
                              leader_configmap(a), options);
  if (!applied) {
    return fail(applied.error().code(), "writing ConfigMap " + std::string(fedapi::kNamespace) +
                                            "/" + std::string(fedapi::kLeaderConfigMap) + ": " +
                                            applied.error().to_error().message());
  }
  auto param = client.apply(fedapi::ref(fedapi::kFederationLeader, std::string(kLeaderObject)),
                            leader_object(a), options);
  if (!param) {
    return fail(param.error().code(), "writing FederationLeader " + std::string(kLeaderObject) +
                                          ": " + param.error().to_error().message());
  }
  return std::move(*applied);
}

Status publish_leader(kube::DynamicClient& client, kube::EventRecorder& events,
                      const LeaderAnnouncement& a) {
  FED_ASSIGN_OR_RETURN(auto applied, apply_leader(client, a));
  // The uid lets `kubectl describe cm fed-leader` match the Event to this ConfigMap.
  const nlohmann::json metadata = applied.value("metadata", nlohmann::json::object());
  const std::string uid = metadata.value("uid", std::string());
  events.record(kube::InvolvedObject{"v1", "ConfigMap", std::string(fedapi::kNamespace),
                                     std::string(fedapi::kLeaderConfigMap), uid},
                kube::EventType::Normal, kLeaderElectedReason, leader_event_message(a));
  return ok();
}

bool publish_leader_with_retries(kube::DynamicClient& client, kube::EventRecorder& events,
                                 const LeaderAnnouncement& a, std::stop_token stop, int attempts,
                                 std::chrono::milliseconds backoff) {
  for (int attempt = 1; attempt <= attempts && !stop.stop_requested(); ++attempt) {
    auto published = publish_leader(client, events, a);
    if (published) return true;
    if (attempt == attempts) {
      spdlog::error("manager: {} (gave up after {} attempts; the controllers run regardless)",
                    published.error().message(), attempts);
      return false;
    }
    spdlog::warn("manager: {} (attempt {} of {})", published.error().message(), attempt, attempts);
    if (!kube::sleep_unless_stopped(backoff, stop)) break;
  }
  return false;
}

}  // namespace fed::ha

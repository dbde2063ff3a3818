#include "agent/manager/ha/leader_pod_label.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "shared/fedapi/names.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/interruptible_sleep.hpp"

namespace fed::ha {

std::optional<PodName> own_pod_from_env() {
  const char* name = std::getenv("POD_NAME");
  if (name == nullptr || *name == '\0') return std::nullopt;
  const char* ns = std::getenv("POD_NAMESPACE");
  return PodName{ns != nullptr && *ns != '\0' ? ns : std::string(fedapi::kNamespace), name};
}

nlohmann::json leader_label_patch(bool leader) {
  // null removes a key in a merge patch (RFC 7386).
  const nlohmann::json value = leader ? nlohmann::json("true") : nlohmann::json(nullptr);
  return {{"metadata", {{"labels", {{std::string(kLeaderLabel), value}}}}}};
}

LeaderPodLabel::LeaderPodLabel(std::shared_ptr<kube::DynamicClient> client,
                               std::optional<PodName> pod)
    : client_(std::move(client)), pod_(std::move(pod)) {
  if (!pod_) {
    settled_ = true;
    spdlog::info("manager: POD_NAME is not set: no pod to mark with {} (not run in a pod)",
                 kLeaderLabel);
  }
}

Status LeaderPodLabel::apply(bool leader) {
  if (!pod_) return ok();
  std::lock_guard lock(mu_);
  if (applied_ != leader) settled_ = false;
  const kube::ResourceRef ref{{"", "v1", "pods"}, pod_->ns, pod_->name, ""};
  auto patched = client_->patch(ref, kube::PatchType::Merge, leader_label_patch(leader).dump());
  if (!patched) {
    return fail(patched.error().code(), std::string(leader ? "labelling" : "unlabelling") +
                                            " pod " + pod_->ns + "/" + pod_->name + ": " +
                                            patched.error().to_error().message());
  }
  applied_ = leader;
  settled_ = true;
  return ok();
}

bool LeaderPodLabel::apply_until_done(bool leader, std::stop_token stop,
                                      std::chrono::milliseconds backoff) {
  constexpr std::chrono::milliseconds kMaxBackoff{5000};
  while (!stop.stop_requested()) {
    auto applied = apply(leader);
    if (applied) {
      if (pod_) {
        spdlog::info("manager: pod {}/{} {} {}", pod_->ns, pod_->name,
                     leader ? "labelled" : "no longer labelled", kLeaderLabel);
      }
      return true;
    }
    spdlog::warn("manager: {} (retrying in {} ms)", applied.error().message(), backoff.count());
    if (!kube::sleep_unless_stopped(backoff, stop)) break;
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
  return false;
}

}  // namespace fed::ha

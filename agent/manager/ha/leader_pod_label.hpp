#pragma once
// The leader's mark on its own pod (docs/HA.md): the label kubectl-fed.io/manager-leader: "true",
// on which the webhook Service selects. Readiness cannot say "leader" any more: standbys must be
// Ready for a Deployment of several replicas to roll out. So the leader labels its pod when it
// starts leading, and every candidate removes the label at start-up, before it reports ready,
// because a container restarted after losing leadership keeps its pod's labels.

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::kube {
class DynamicClient;
}

namespace fed::ha {

inline constexpr std::string_view kLeaderLabel = "kubectl-fed.io/manager-leader";

struct PodName {
  std::string ns, name;
};

// The manager's own pod, from the Deployment's downward API: $POD_NAME in $POD_NAMESPACE (unset:
// fedapi::kNamespace, where the manager always runs). Empty when POD_NAME is unset or empty: a
// manager run as a plain process (tests) has no pod to label.
std::optional<PodName> own_pod_from_env();

// The merge patch that sets the label (leader) or removes it. Removing an absent label changes
// nothing, so a candidate clears it without reading the pod first.
nlohmann::json leader_label_patch(bool leader);

class LeaderPodLabel final {
 public:
  // Labels `pod` through `client`. Without a pod every apply succeeds at once (logged once).
  LeaderPodLabel(std::shared_ptr<kube::DynamicClient> client, std::optional<PodName> pod);

  // One merge patch of the pod. settled() turns false at once when `leader` differs from what
  // was last applied, and true when the patch lands.
  Status apply(bool leader);
  // apply() until it lands or `stop` is requested; retries after `backoff`, doubling up to 5 s.
  // True once it landed.
  bool apply_until_done(bool leader, std::stop_token stop,
                        std::chrono::milliseconds backoff = std::chrono::milliseconds(200));
  // True while the pod carries the state last asked for (always without a pod). Thread-safe.
  bool settled() const { return settled_; }
  const std::optional<PodName>& pod() const { return pod_; }

 private:
  std::shared_ptr<kube::DynamicClient> client_;
  const std::optional<PodName> pod_;
  std::mutex mu_;                     // one patch at a time, in the order asked
  std::optional<bool> applied_;       // what the pod carries as far as this process knows
  std::atomic<bool> settled_{false};  // nothing asked yet: a candidate has not cleared the label
};

}  // namespace fed::ha

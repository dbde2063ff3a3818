#pragma once
// What the elected manager tells the host cluster about its leadership (docs/HA.md): the
// ConfigMap fed-leader in the federation's namespace, so that `kubectl get cm fed-leader`
// always names the leader, and an Event LeaderElected on it, so that `kubectl describe` and
// `kubectl get events` show each change of leader. The bodies are built by pure functions; the
// writes are best-effort for the controllers: a failure is logged and retried a few times,
// never stops them.

#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::kube {
class DynamicClient;
class EventRecorder;
}  // namespace fed::kube

namespace fed::ha {

// The field manager of the ConfigMap's server-side apply: the same for every manager, so that
// the next leader's apply owns (and may drop) whatever the previous one wrote.
inline constexpr std::string_view kLeaderFieldManager = "fed-agent-manager";
inline constexpr std::string_view kLeaderElectedReason = "LeaderElected";
// The FederationLeader's name, the ConfigMap's: one of each on every host.
inline constexpr std::string_view kLeaderObject = "fed-leader";

struct LeaderAnnouncement {
  std::string holder;      // the leadership record's holder (no election: the identity)
  std::string host;        // the host cluster's id, where this manager runs
  std::int64_t epoch = 0;  // the record's epoch; 0 without leader election
  std::string since;       // RFC 3339: the record's acquiredAt (no election: the start)
  // LeaderElector::takeover_wait(): how long the federation went without a leader; unknown
  // for the federation's first leader and without election.
  std::optional<std::chrono::nanoseconds> failover;
  // True when the publisher is the leader itself: data.role "leader" (the host's
  // federation writes are admitted), else "follower" (manifests/manager/leader-writes-policy).
  bool published_by_leader = true;
};

// Seconds with `decimals` decimals: "0.712".
std::string format_seconds(std::chrono::nanoseconds d, int decimals);

// The ConfigMap fed-leader as applied: data holder, host, epoch, since and role, and
// failoverSeconds when known; labelled app.kubernetes.io/part-of: kubectl-fed.
nlohmann::json leader_configmap(const LeaderAnnouncement& a);

// The FederationLeader fed-leader as applied: spec holder, host, epoch, since and role — the
// parameter of the policy that refuses the federation's writes on a follower host.
nlohmann::json leader_object(const LeaderAnnouncement& a);

// Applies the ConfigMap, then the FederationLeader; returns the ConfigMap as applied.
Result<nlohmann::json> apply_leader(kube::DynamicClient& client, const LeaderAnnouncement& a);

// The LeaderElected Event's message, e.g. "fed-manager-abc_12 on host c1 leads the federation
// (epoch 3) after 0.71 s without a leader".
std::string leader_event_message(const LeaderAnnouncement& a);

// apply_leader(), then records the Event on the ConfigMap (the recorder logs its failures).
// An error when the ConfigMap could not be written.
Status publish_leader(kube::DynamicClient& client, kube::EventRecorder& events,
                      const LeaderAnnouncement& a);

// publish_leader() up to `attempts` times, `backoff` apart, until `stop`; logs each failure.
// True once published.
bool publish_leader_with_retries(kube::DynamicClient& client, kube::EventRecorder& events,
                                 const LeaderAnnouncement& a, std::stop_token stop,
                                 int attempts = 5,
                                 std::chrono::milliseconds backoff = std::chrono::seconds(1));

}  // namespace fed::ha

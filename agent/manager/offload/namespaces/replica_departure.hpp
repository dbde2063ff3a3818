#pragma once
// A member that an offloading's selector stops matching (the spec or the member's labels
// changed) loses its replica of the namespace, and the replica's pods with it. Before that, the
// host's pods bound to the member's virtual node move elsewhere (issue 29), the way `unjoin`
// moves them: one at a time, each taken only while every PodDisruptionBudget selecting it
// allows a disruption, the next only once the previous one's ReplicaSet or StatefulSet is whole
// again — on the members still selected or on the host, where the pod webhook now places new
// pods. A taken pod leaves its Services before its twin stops (the pod reflector's drain), so
// no request goes to a pod about to die while others serve.
//
// The manager deletes the pod rather than evicting it: it is the kubelet of its virtual nodes
// and may delete exactly their pods (virtual-node-pods-policy.yaml), whereas the right to
// create evictions cannot be narrowed to them (the request carries an Eviction, not the pod),
// so it would let the manager disrupt any pod of the host. The budget is checked here instead,
// from its status.disruptionsAllowed, which the disruption controller recomputes between two
// moves since each waits for the workload to be whole.
//
// A move that has not finished after kDepartureBudget gives up with a warning and the replica
// goes: a budget that never allows a disruption cannot hold a spec change forever.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/pod_owner.hpp"
#include "shared/result/result.hpp"

namespace fed::offload {

inline constexpr std::chrono::seconds kDepartureBudget{120};

// The budget among `budgets` (a policy/v1 PodDisruptionBudgetList's items) that selects `pod`
// and allows no disruption now, as "web (0 disruptions allowed)"; nullopt when none holds it.
// Pure.
std::optional<std::string> budget_holding(const nlohmann::json& budgets, const nlohmann::json& pod);

enum class Departure {
  Done,    // no pod of the namespace left on the member's virtual node: the replica may go
  Moving,  // look again soon
};

class ReplicaDeparture final {
 public:
  explicit ReplicaDeparture(std::shared_ptr<kube::DynamicClient> host);

  // One step of moving host namespace `ns`'s pods off member `member`'s virtual node.
  Result<Departure> step(const std::string& member, const std::string& ns);
  // The member is selected again (or the offloading goes): whatever move was under way stops.
  void forget(const std::string& member, const std::string& ns);

 private:
  struct Move {
    std::chrono::steady_clock::time_point began;
    std::optional<kube::PodOwner> replacing;  // the workload of the last pod taken
    std::string held_by;                      // the budget last seen holding a pod
  };
  using Key = std::pair<std::string, std::string>;  // member, namespace

  Result<Departure> advance(const Key& key, Move& move);

  std::shared_ptr<kube::DynamicClient> host_;
  std::mutex mu_;
  std::map<Key, Move> moves_;
};

}  // namespace fed::offload

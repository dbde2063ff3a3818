#include "agent/manager/offload/namespaces/offloading_phase.hpp"

#include <algorithm>

namespace fed::offload {

std::vector<fedapi::Condition> remote_conditions(const ClusterMapping& mapping,
                                                 const std::string& cluster_id,
                                                 std::vector<fedapi::Condition> previous,
                                                 const std::string& now) {
  using fedapi::MappingPhase;
  std::vector<fedapi::Condition> out = std::move(previous);
  const std::string ns =
      mapping.remote_namespace.empty() ? "the namespace" : "namespace " + mapping.remote_namespace;
  fedapi::set_condition(
      out,
      {std::string(fedapi::kConditionOffloadingRequired), mapping.desired ? "True" : "False",
       mapping.desired ? "ClusterSelected" : "ClusterNotSelected",
       mapping.desired ? "cluster " + cluster_id + " matches the clusterSelector"
                       : "cluster " + cluster_id + " does not match the clusterSelector",
       "", 0},
      now);
  if (!mapping.phase) {
    std::erase_if(out,
                  [](const fedapi::Condition& c) { return c.type == fedapi::kConditionReady; });
  } else {
    fedapi::Condition ready{std::string(fedapi::kConditionReady), "False", "", "", "", 0};
    switch (*mapping.phase) {
      case MappingPhase::Accepted:
        ready.status = "True";
        ready.reason = "RemoteNamespaceCreated";
        ready.message = ns + " exists in " + cluster_id;
        break;
      case MappingPhase::CreationLoopBackOff:
        ready.reason = "CreationLoopBackOff";
        ready.message = "creating " + ns + " in " + cluster_id + " keeps failing";
        break;
      case MappingPhase::Terminating:
        ready.reason = "TerminatingNamespace";
        ready.message = ns + " is being deleted in " + cluster_id;
        break;
    }
    fedapi::set_condition(out, std::move(ready), now);
  }
  // A stable order (OffloadingRequired, Ready) so that equal states compare equal.
  std::sort(out.begin(), out.end(),
            [](const fedapi::Condition& a, const fedapi::Condition& b) { return a.type < b.type; });
  return out;
}

fedapi::OffloadingPhase offloading_phase(
    const std::map<std::string, std::vector<fedapi::Condition>>& remote_namespaces_conditions,
    Deleting deleting) {
  using fedapi::OffloadingPhase;
  if (deleting == Deleting::Yes) return OffloadingPhase::Terminating;
  int with_ready = 0, ready = 0, pending = 0;
  for (const auto& [cluster, conditions] : remote_namespaces_conditions) {
    const auto* c = fedapi::find_condition(conditions, fedapi::kConditionReady);
    if (c == nullptr) {
      const auto* required =
          fedapi::find_condition(conditions, fedapi::kConditionOffloadingRequired);
      if (required != nullptr && required->status == "True") ++pending;
      continue;
    }
    ++with_ready;
    if (c->status == "True") ++ready;
  }
  // The spec's order, but "Ready" only once every selected member has reported: by the rule
  // alone a namespace is Ready as soon as one replica exists and none has failed.
  if (ready < with_ready) {
    return ready == 0 && pending == 0 ? OffloadingPhase::AllFailed : OffloadingPhase::SomeFailed;
  }
  if (pending > 0) return OffloadingPhase::InProgress;
  if (with_ready == 0) return OffloadingPhase::NoClusterSelected;
  return OffloadingPhase::Ready;
}

}  // namespace fed::offload

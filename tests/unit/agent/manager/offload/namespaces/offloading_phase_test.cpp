#include <doctest/doctest.h>

#include "agent/manager/offload/namespaces/offloading_phase.hpp"

namespace fed::offload {
namespace {

using fedapi::Condition;
using fedapi::MappingPhase;
using fedapi::OffloadingPhase;

const std::string kT0 = "2026-11-24T10:00:00Z";
const std::string kT1 = "2026-11-24T10:01:00Z";

std::vector<Condition> conditions_for(std::optional<MappingPhase> phase, bool desired = true) {
  return remote_conditions({desired, phase, "shop"}, "c2", {}, kT0);
}

std::string status_of(const std::vector<Condition>& cs, std::string_view type) {
  const auto* c = fedapi::find_condition(cs, type);
  return c == nullptr ? "absent" : c->status;
}

}  // namespace

TEST_CASE("per-cluster conditions follow the NamespaceMap") {
  auto accepted = conditions_for(MappingPhase::Accepted);
  CHECK(status_of(accepted, "OffloadingRequired") == "True");
  CHECK(status_of(accepted, "Ready") == "True");
  CHECK(fedapi::find_condition(accepted, "Ready")->reason == "RemoteNamespaceCreated");
  CHECK(fedapi::find_condition(accepted, "Ready")->message == "namespace shop exists in c2");
  auto backoff = conditions_for(MappingPhase::CreationLoopBackOff);
  CHECK(status_of(backoff, "Ready") == "False");
  CHECK(fedapi::find_condition(backoff, "Ready")->reason == "CreationLoopBackOff");
  auto terminating = conditions_for(MappingPhase::Terminating, false);
  CHECK(status_of(terminating, "OffloadingRequired") == "False");
  CHECK(fedapi::find_condition(terminating, "Ready")->reason == "TerminatingNamespace");
  auto pending = conditions_for(std::nullopt);
  CHECK(status_of(pending, "OffloadingRequired") == "True");
  CHECK(status_of(pending, "Ready") == "absent");
  auto not_selected = conditions_for(std::nullopt, false);
  CHECK(fedapi::find_condition(not_selected, "OffloadingRequired")->reason == "ClusterNotSelected");
  CHECK(not_selected.size() == 1);
}

TEST_CASE("lastTransitionTime moves only when a status changes; Ready goes with the entry") {
  auto first = remote_conditions({true, MappingPhase::Accepted, "shop"}, "c2", {}, kT0);
  auto same = remote_conditions({true, MappingPhase::Accepted, "shop"}, "c2", first, kT1);
  CHECK(same == first);
  auto failed =
      remote_conditions({true, MappingPhase::CreationLoopBackOff, "shop"}, "c2", first, kT1);
  CHECK(fedapi::find_condition(failed, "Ready")->last_transition_time == kT1);
  CHECK(fedapi::find_condition(failed, "OffloadingRequired")->last_transition_time == kT0);
  auto gone = remote_conditions({false, std::nullopt, "shop"}, "c2", failed, kT1);
  CHECK(status_of(gone, "Ready") == "absent");
  CHECK(gone.size() == 1);
}

TEST_CASE("offloadingPhase in the spec's order") {
  using Map = std::map<std::string, std::vector<Condition>>;
  const auto ready = conditions_for(MappingPhase::Accepted);
  const auto failed = conditions_for(MappingPhase::CreationLoopBackOff);
  const auto not_selected = conditions_for(std::nullopt, false);
  CHECK(offloading_phase(Map{}, Deleting::No) == OffloadingPhase::NoClusterSelected);
  CHECK(offloading_phase(Map{{"c2", not_selected}, {"c3", not_selected}}, Deleting::No) ==
        OffloadingPhase::NoClusterSelected);
  CHECK(offloading_phase(Map{{"c2", ready}, {"c3", not_selected}}, Deleting::No) ==
        OffloadingPhase::Ready);
  CHECK(offloading_phase(Map{{"c2", ready}, {"c3", failed}}, Deleting::No) ==
        OffloadingPhase::SomeFailed);
  CHECK(offloading_phase(Map{{"c2", failed}, {"c3", failed}}, Deleting::No) ==
        OffloadingPhase::AllFailed);
  CHECK(offloading_phase(Map{{"c2", ready}}, Deleting::Yes) == OffloadingPhase::Terminating);
  CHECK(offloading_phase(Map{}, Deleting::Yes) == OffloadingPhase::Terminating);
  auto unknown = ready;
  unknown[1].status = "Unknown";  // sorted: OffloadingRequired, Ready
  REQUIRE(unknown[1].type == "Ready");
  CHECK(offloading_phase(Map{{"c2", ready}, {"c3", unknown}}, Deleting::No) ==
        OffloadingPhase::SomeFailed);
}

TEST_CASE("offloadingPhase: Ready only once every selected member has reported its replica") {
  using Map = std::map<std::string, std::vector<Condition>>;
  const auto ready = conditions_for(MappingPhase::Accepted);
  const auto failed = conditions_for(MappingPhase::CreationLoopBackOff);
  const auto pending = conditions_for(std::nullopt, true);  // selected, no replica reported yet
  REQUIRE(status_of(pending, "Ready") == "absent");
  CHECK(offloading_phase(Map{{"c2", pending}}, Deleting::No) == OffloadingPhase::InProgress);
  CHECK(offloading_phase(Map{{"c2", ready}, {"c3", pending}}, Deleting::No) ==
        OffloadingPhase::InProgress);
  // A failure already known is said at once, and is not "all" while others may still succeed.
  CHECK(offloading_phase(Map{{"c2", failed}, {"c3", pending}}, Deleting::No) ==
        OffloadingPhase::SomeFailed);
  CHECK(offloading_phase(Map{{"c2", ready}, {"c3", failed}, {"c4", pending}}, Deleting::No) ==
        OffloadingPhase::SomeFailed);
  CHECK(offloading_phase(Map{{"c2", pending}}, Deleting::Yes) == OffloadingPhase::Terminating);
}

}  // namespace fed::offload

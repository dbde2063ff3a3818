// When a member counts as unreachable from the host, and what its pods look like meanwhile.
#include "agent/manager/offload/reflection/member_reachability.hpp"

#include <doctest/doctest.h>

namespace fed::offload {
namespace {

using nlohmann::json;

json peering(const std::string& state, const std::string& message = "") {
  json p{{"metadata", {{"name", "c2"}}}, {"status", {{"tunnel", {{"state", state}}}}}};
  if (!message.empty()) p["status"]["tunnel"]["message"] = message;
  return p;
}

json ready_pod_status() {
  return json::parse(R"({
    "phase": "Running",
    "conditions": [
      {"type": "Initialized", "status": "True", "lastTransitionTime": "2026-11-27T10:00:00Z"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-27T10:00:05Z"},
      {"type": "ContainersReady", "status": "True", "lastTransitionTime": "2026-11-27T10:00:05Z"},
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-27T10:00:00Z"}
    ],
    "podIP": "10.204.0.7",
    "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0}]
  })");
}

const json* condition(const json& status, const std::string& type) {
  for (const auto& c : status["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a member is unreachable only while the host's Peering with it says Lost") {
  CHECK_FALSE(unreachable_reason(nullptr));
  const json connected = peering("Connected");
  CHECK_FALSE(unreachable_reason(&connected));
  const json error = peering("Error", "no handshake since ...");
  CHECK_FALSE(unreachable_reason(&error));  // minutes-old: the probe speaks first, as Lost
  const json no_status{{"metadata", {{"name", "c2"}}}};
  CHECK_FALSE(unreachable_reason(&no_status));
  const json lost = peering("Lost", "c2's gateway no longer answers over the tunnel");
  CHECK(unreachable_reason(&lost) == "c2's gateway no longer answers over the tunnel");
  const json lost_silently = peering("Lost");
  CHECK(unreachable_reason(&lost_silently)->find("lost") != std::string::npos);
}

TEST_CASE("a lost member's pod: not Ready, its containers not ready, the rest kept") {
  const json s = unreachable_pod_status(ready_pod_status(), "gone", "2026-11-27T11:00:00Z");
  for (const char* type : {"Ready", "ContainersReady"}) {
    const json* c = condition(s, type);
    REQUIRE(c != nullptr);
    CHECK((*c)["status"] == "False");
    CHECK((*c)["reason"] == std::string(kMemberUnreachableReason));
    CHECK((*c)["message"] == "gone");
    CHECK((*c)["lastTransitionTime"] == "2026-11-27T11:00:00Z");
  }
  CHECK((*condition(s, "Initialized"))["status"] == "True");
  CHECK(s["phase"] == "Running");
  CHECK(s["podIP"] == "10.204.0.7");
  CHECK(s["containerStatuses"][0]["ready"] == false);
  CHECK(s["conditions"].size() == 4);
}

TEST_CASE("writing it again changes nothing: no status write on every pass") {
  const json once = unreachable_pod_status(ready_pod_status(), "gone", "2026-11-27T11:00:00Z");
  const json twice = unreachable_pod_status(once, "gone", "2026-11-27T11:05:00Z");
  CHECK(twice == once);
}

TEST_CASE("a pod without conditions yet gets them") {
  const json s = unreachable_pod_status(json::object(), "gone", "2026-11-27T11:00:00Z");
  REQUIRE(condition(s, "Ready") != nullptr);
  CHECK((*condition(s, "Ready"))["status"] == "False");
  CHECK_FALSE(s.contains("containerStatuses"));
}

TEST_CASE("a pod whose twin stops on its member: not Ready with TwinStopping, then again") {
  const json s = not_ready_pod_status(ready_pod_status(), kTwinStoppingReason,
                                      "its twin on c2 is stopping", "2026-11-27T11:00:00Z");
  const json* ready = condition(s, "Ready");
  REQUIRE(ready != nullptr);
  CHECK((*ready)["status"] == "False");
  CHECK((*ready)["reason"] == "TwinStopping");
  CHECK(s["podIP"] == "10.204.0.7");  // still its address until a new twin reports
  // The member lost next: the reason says so.
  const json lost = unreachable_pod_status(s, "gone", "2026-11-27T11:00:05Z");
  CHECK((*condition(lost, "Ready"))["reason"] == std::string(kMemberUnreachableReason));
}

}  // namespace fed::offload

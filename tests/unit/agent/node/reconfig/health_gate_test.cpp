#include "agent/node/reconfig/health_gate.hpp"

#include <doctest/doctest.h>

#include <string>

#include "shared/util/rfc3339.hpp"

using nlohmann::json;
using namespace fed::reconfig;
using namespace std::chrono_literals;
using Clock = std::chrono::system_clock;

namespace {

const Clock::time_point kRestart = fed::util::parse_rfc3339("2025-03-01T10:00:00Z").value();

json node(const std::string& status, const std::string& heartbeat) {
  return {{"metadata", {{"name", "node1"}}},
          {"status",
           {{"conditions",
             {{{"type", "MemoryPressure"}, {"status", "False"}},
              {{"type", "Ready"},
               {"status", status},
               {"reason", status == "True" ? "KubeletReady" : "KubeletNotReady"},
               {"message", "container runtime status check may not have completed yet"},
               {"lastHeartbeatTime", heartbeat}}}}}}};
}

// A kubelet that passes: healthz ok, Ready True 5 s after the restart, /configz with the values.
KubeletObservation healthy() {
  KubeletObservation seen;
  seen.healthz_ok = true;
  seen.node = node("True", "2025-03-01T10:00:05Z");
  seen.configz = json{{"cpuManagerPolicy", "static"},
                      {"reservedSystemCPUs", "0"},
                      {"featureGates", {{"NodeSwap", true}}},
                      {"maxPods", 110}};
  return seen;
}

const json kExpected = {
    {"cpuManagerPolicy", "static"}, {"reservedSystemCPUs", "0"}, {"featureGates.NodeSwap", true}};

bool has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a healthy, fresh kubelet running the expected values passes the gate") {
  CHECK(gate_failure(healthy(), kExpected, kRestart) == "");
  CHECK(gate_failure(healthy(), json::object(), kRestart) == "");
  // Second precision: a heartbeat in the restart's second (written without fraction) counts.
  auto same_second = healthy();
  same_second.node = node("True", "2025-03-01T10:00:00Z");
  CHECK(gate_failure(same_second, kExpected, kRestart + 700ms) == "");
}

TEST_CASE("/healthz down fails first, with its detail") {
  auto seen = healthy();
  seen.healthz_ok = false;
  seen.healthz_detail = "connection refused";
  seen.node.reset();
  CHECK(gate_failure(seen, kExpected, kRestart) == "kubelet /healthz: connection refused");
}

TEST_CASE("the Node must be readable, Ready, and heard from since the restart") {
  auto no_node = healthy();
  no_node.node.reset();
  CHECK(gate_failure(no_node, kExpected, kRestart) == "cannot read the Node object");

  auto not_ready = healthy();
  not_ready.node = node("False", "2025-03-01T10:00:05Z");
  const auto why = gate_failure(not_ready, kExpected, kRestart);
  CHECK(has(why, "Node Ready is False"));
  CHECK(has(why, "KubeletNotReady: container runtime status check"));
  auto unknown = healthy();
  unknown.node = node("Unknown", "2025-03-01T10:00:05Z");
  CHECK(has(gate_failure(unknown, kExpected, kRestart), "Node Ready is Unknown"));

  // Ready True, but the last heartbeat may come from the kubelet before the restart.
  auto stale = healthy();
  stale.node = node("True", "2025-03-01T09:59:59Z");
  const auto old = gate_failure(stale, kExpected, kRestart);
  CHECK(has(old, "Node Ready is True but its last heartbeat (2025-03-01T09:59:59Z)"));
  CHECK(has(old, "before the restart"));
  // The same heartbeat passes for an earlier `since` (the "already healthy?" check uses epoch).
  CHECK(gate_failure(stale, kExpected, Clock::time_point{}) == "");

  auto unreadable = healthy();
  unreadable.node = node("True", "yesterday");
  CHECK(gate_failure(unreadable, kExpected, kRestart) ==
        "Node Ready has no readable lastHeartbeatTime");
  auto no_ready = healthy();
  no_ready.node = json{{"metadata", {{"name", "node1"}}}};
  CHECK(gate_failure(no_ready, kExpected, kRestart) == "Node has no Ready condition");
}

TEST_CASE("/configz must answer and show every expected value") {
  auto silent = healthy();
  silent.configz.reset();
  silent.configz_detail = "503 Service Unavailable";
  CHECK(gate_failure(silent, kExpected, kRestart) == "kubelet /configz: 503 Service Unavailable");

  auto old_values = healthy();
  (*old_values.configz)["cpuManagerPolicy"] = "none";
  old_values.configz->erase("featureGates");
  CHECK(gate_failure(old_values, kExpected, kRestart) ==
        "kubelet /configz differs: cpuManagerPolicy: want \"static\", have \"none\"; "
        "featureGates.NodeSwap: want true, have (unset)");
}

TEST_CASE("wait_for_gate polls until the kubelet turns healthy") {
  int calls = 0;
  const auto observe = [&calls] {
    ++calls;
    if (calls < 3) {
      KubeletObservation down;
      down.healthz_detail = "connection refused";
      return down;
    }
    return healthy();
  };
  CHECK(wait_for_gate(observe, kExpected, kRestart, 5s, 1ms) == "");
  CHECK(calls == 3);
}

TEST_CASE("wait_for_gate gives up after the timeout with the last reason") {
  int calls = 0;
  const auto observe = [&calls] {
    auto seen = healthy();
    seen.configz = json{{"cpuManagerPolicy", calls++ == 0 ? "none" : "static"}};
    return seen;  // never shows reservedSystemCPUs
  };
  const auto started = std::chrono::steady_clock::now();
  const auto why = wait_for_gate(observe, kExpected, kRestart, 50ms, 5ms);
  const auto waited = std::chrono::steady_clock::now() - started;
  CHECK(why.rfind("not healthy within 50ms: kubelet /configz differs: ", 0) == 0);
  CHECK(has(why, "reservedSystemCPUs: want \"0\", have (unset)"));
  CHECK_FALSE(has(why, "cpuManagerPolicy"));  // the last look's reason, not the first's
  CHECK(calls >= 3);
  CHECK(waited >= 40ms);
  CHECK(waited < 2s);

  // A timeout shorter than the interval looks once and does not sleep.
  calls = 0;
  const auto once = wait_for_gate(observe, kExpected, kRestart, 1ms, 1h);
  CHECK(calls == 1);
  CHECK(has(once, "not healthy within 1ms"));
}

#include "agent/node/reconfig/health_gate.hpp"

#include <thread>

#include "shared/reconfig/change_set.hpp"
#include "shared/util/duration.hpp"
#include "shared/util/rfc3339.hpp"
#include "shared/util/strings.hpp"

namespace fed::reconfig {
namespace {

// The Ready condition's problem, "" when it is True and fresh.
std::string ready_failure(const nlohmann::json& node, std::chrono::system_clock::time_point since) {
  const auto conditions =
      node.value(nlohmann::json::json_pointer("/status/conditions"), nlohmann::json::array());
  for (const auto& c : conditions) {
    if (c.value("type", "") != "Ready") continue;
    if (c.value("status", "") != "True") {
      return "Node Ready is " + c.value("status", "?") + " (" + c.value("reason", "") + ": " +
             c.value("message", "") + ")";
    }
    auto beat = util::parse_rfc3339(c.value("lastHeartbeatTime", ""));
    if (!beat) return "Node Ready has no readable lastHeartbeatTime";
    if (*beat < std::chrono::floor<std::chrono::seconds>(since)) {
      return "Node Ready is True but its last heartbeat (" + c.value("lastHeartbeatTime", "") +
             ") is from before the restart";
    }
    return "";
  }
  return "Node has no Ready condition";
}

}  // namespace

std::string gate_failure(const KubeletObservation& seen, const nlohmann::json& expected,
                         std::chrono::system_clock::time_point since) {
  if (!seen.healthz_ok) return "kubelet /healthz: " + seen.healthz_detail;
  if (!seen.node) return "cannot read the Node object";
  if (auto ready = ready_failure(*seen.node, since); !ready.empty()) return ready;
  if (!seen.configz) return "kubelet /configz: " + seen.configz_detail;
  const auto diff = mismatches(*seen.configz, expected);
  if (!diff.empty()) return "kubelet /configz differs: " + util::join(diff, "; ");
  return "";
}

std::string wait_for_gate(const std::function<KubeletObservation()>& observe,
                          const nlohmann::json& expected,
                          std::chrono::system_clock::time_point since,
                          std::chrono::milliseconds timeout, std::chrono::milliseconds interval) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string reason;
  while (true) {
    reason = gate_failure(observe(), expected, since);
    if (reason.empty()) return "";
    if (std::chrono::steady_clock::now() + interval > deadline) break;
    std::this_thread::sleep_for(interval);
  }
  return "not healthy within " + util::format_duration(timeout) + ": " + reason;
}

}  // namespace fed::reconfig

#pragma once
// The health gate after a kubelet restart: /healthz answers ok, the Node's Ready condition is
// True with a heartbeat from after the restart (an older one could come from the old kubelet),
// and /configz shows the expected values. Evaluation is pure; observe() is NodeClient's.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fed::reconfig {

// One look at the kubelet through the API server; a detail string says what failed.
struct KubeletObservation {
  bool healthz_ok = false;
  std::string healthz_detail;             // the error or unexpected body when not ok
  std::optional<nlohmann::json> node;     // the Node object, when it could be read
  std::optional<nlohmann::json> configz;  // /configz's "kubeletconfig", when it answered
  std::string configz_detail;
};

// Why the observation does not pass yet ("" when it passes): `expected` ({key: value}) must
// match /configz, and Ready must be True with lastHeartbeatTime >= `since` (second precision).
std::string gate_failure(const KubeletObservation& seen, const nlohmann::json& expected,
                         std::chrono::system_clock::time_point since);

// Polls `observe` every `interval` until gate_failure is empty or `timeout` passes. Returns ""
// on success, else the last reason with how long it waited.
std::string wait_for_gate(const std::function<KubeletObservation()>& observe,
                          const nlohmann::json& expected,
                          std::chrono::system_clock::time_point since,
                          std::chrono::milliseconds timeout,
                          std::chrono::milliseconds interval = std::chrono::seconds(1));

}  // namespace fed::reconfig

#pragma once
// A node's reconfiguration progress, kept in annotations of its own Node object
// (kubectl-fed.io/reconfigure-*): what was asked, the running values before it, the phase
// reached and the last message. A restarted agent reads them to finish or undo the change
// instead of starting again, and `kubectl fed reconfigure status` will show them. Pure.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::reconfig {

inline constexpr std::string_view kAnnotationPrefix = "kubectl-fed.io/reconfigure-";

enum class Phase {
  Started,        // recorded; the backup may exist; the config file is still the old one
  ConfigWritten,  // the new config file is in place; the kubelet may still run the old one
  Restarted,      // the kubelet was restarted with it; the health gate runs
  Succeeded,      // the health gate passed
  RollingBack,    // the gate failed; the backup is being put back
  RolledBack,     // the old config runs again and is healthy; message says why
  Failed,         // even the rollback did not bring the kubelet back; message says why
};

std::string_view to_string(Phase phase);
Result<Phase> parse_phase(std::string_view text);
// Phases after which an agent must finish (or undo) the change before anything else.
bool in_progress(Phase phase);

struct Progress {
  Phase phase = Phase::Started;
  nlohmann::json desired;   // the change set (to_json(ChangeSet))
  nlohmann::json original;  // the running values of its keys before the change (values_at)
  std::string message;      // the last failure or rollback reason; empty when none
  std::string updated;      // RFC 3339 time of the last update
};

// A JSON merge patch for the Node setting every annotation of `progress` (updated := now).
nlohmann::json progress_patch(Progress progress, std::chrono::system_clock::time_point now);

// The progress recorded on `node` (a Node object), nullopt when it has none. Invalid when the
// annotations are there but unreadable (someone edited them): the message names the annotation.
Result<std::optional<Progress>> progress_from_node(const nlohmann::json& node);

}  // namespace fed::reconfig

#pragma once
// A status condition as Kubernetes' metav1.Condition spells it, shared by every kind's status.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fed::fedapi {

struct Condition {
  std::string type;                  // "Ready", "NetworkReady", ...
  std::string status;                // "True", "False" or "Unknown"
  std::string reason;                // CamelCase, machine-readable
  std::string message;               // for people
  std::string last_transition_time;  // RFC 3339
  std::int64_t observed_generation = 0;

  friend bool operator==(const Condition&, const Condition&) = default;
};

// The condition of `type` in `conditions`, or nullptr.
const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);

void to_json(nlohmann::json& j, const Condition& c);
// Throws FieldError (json_fields.hpp); call through decode().
void from_json(const nlohmann::json& j, Condition& c);

// Puts `c` into `conditions` (replacing the one of its type). lastTransitionTime is `now` when
// the status changed and kept otherwise. True when anything changed.
bool set_condition(std::vector<Condition>& conditions, Condition c, const std::string& now);

// The conditions list of a status; absent when empty.
void write_conditions(nlohmann::json& j, const std::vector<Condition>& conditions);
std::vector<Condition> read_conditions(const nlohmann::json& j);

}  // namespace fed::fedapi

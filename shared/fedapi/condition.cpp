#include "shared/fedapi/condition.hpp"

#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool set_condition(std::vector<Condition>& conditions, Condition c, const std::string& now) {
  for (Condition& old : conditions) {
    if (old.type != c.type) continue;
    c.last_transition_time = old.status == c.status ? old.last_transition_time : now;
    if (old == c) return false;
    old = std::move(c);
    return true;
  }
  c.last_transition_time = now;
  conditions.push_back(std::move(c));
  return true;
}

void to_json(nlohmann::json& j, const Condition& c) {
  j = nlohmann::json::object();
  j["type"] = c.type;
  j["status"] = c.status;
  write_string(j, "reason", c.reason);
  write_string(j, "message", c.message);
  write_string(j, "lastTransitionTime", c.last_transition_time);
  write_int(j, "observedGeneration", c.observed_generation);
}

void from_json(const nlohmann::json& j, Condition& c) {
  c.type = read_string(j, "type", Presence::Required);
  c.status = read_string(j, "status", Presence::Required);
  if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
    throw FieldError("status: must be True, False or Unknown, not \"" + c.status + "\"");
  }
  c.reason = read_string(j, "reason");
  c.message = read_string(j, "message");
  c.last_transition_time = read_string(j, "lastTransitionTime");
  c.observed_generation = read_int(j, "observedGeneration");
}

void write_conditions(nlohmann::json& j, const std::vector<Condition>& conditions) {
  if (!conditions.empty()) j["conditions"] = conditions;
}

std::vector<Condition> read_conditions(const nlohmann::json& j) {
  std::vector<Condition> out;
  auto it = j.find("conditions");
  if (it == j.end() || it->is_null()) return out;
  if (!it->is_array()) throw FieldError("conditions: must be a list");
  for (std::size_t i = 0; i < it->size(); ++i) {
    out.push_back(
        within("conditions[" + std::to_string(i) + "]", [&] { return (*it)[i].get<Condition>(); }));
  }
  return out;
}

}  // namespace fed::fedapi

#include "shared/reconfig/change_set.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "shared/reconfig/allow_list.hpp"
#include "shared/util/quantity.hpp"

namespace fed::reconfig {
namespace {

// "evictionHard.memory.available" -> {"evictionHard", "memory.available"}; "maxPods" -> {"maxPods",
// ""}.
std::pair<std::string, std::string> split_key(const std::string& key) {
  const auto dot = key.find('.');
  if (dot == std::string::npos) return {key, ""};
  return {key.substr(0, dot), key.substr(dot + 1)};
}

const nlohmann::json* lookup(const nlohmann::json& config, const std::string& key) {
  const auto [field, entry] = split_key(key);
  if (!config.is_object() || !config.contains(field)) return nullptr;
  const nlohmann::json& value = config.at(field);
  if (entry.empty()) return &value;
  if (!value.is_object() || !value.contains(entry)) return nullptr;
  return &value.at(entry);
}

// A reservation counts when it is set and not zero ("0", "0m").
bool reserves_cpu(const nlohmann::json& merged, const std::string& key) {
  const nlohmann::json* v = lookup(merged, key);
  if (v == nullptr || !v->is_string()) return false;
  auto q = util::parse_quantity(v->get<std::string>());
  return q && q->as_double() > 0;
}

Error invalid_change(std::string message) {
  return Error(ErrorCode::Invalid, std::move(message));
}

Result<Change> parse_change(const std::string& key, const std::string& text) {
  const auto [field, entry] = split_key(key);
  FED_ASSIGN_OR_RETURN(const FieldSpec* spec, find_field(field));
  FED_ASSIGN_OR_RETURN(nlohmann::json value, typed_value(*spec, entry, text));
  return Change{key, std::move(value)};
}

// The text form of a typed value, to re-check a stored change set through the allow-list.
std::string as_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

Result<ChangeSet> build(std::vector<std::pair<std::string, std::string>> items) {
  if (items.empty())
    return invalid_change("no change given: add --set field=value (docs/RECONFIGURE.md)");
  ChangeSet set;
  std::set<std::string> seen, files;
  for (auto& [key, text] : items) {
    if (!seen.insert(key).second) {
      return invalid_change("--set " + key + " is given twice; keep one value");
    }
    FED_ASSIGN_OR_RETURN(Change change, parse_change(key, text));
    const auto spec = find_field(split_key(key).first);
    for (const auto& f : (*spec)->state_files) files.emplace(f);
    set.changes.push_back(std::move(change));
  }
  set.state_files.assign(files.begin(), files.end());
  return set;
}

}  // namespace

Result<ChangeSet> parse_set_args(const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return invalid_change("--set " + item +
                            ": expected field=value, e.g. cpuManagerPolicy=static");
    }
    pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return build(std::move(pairs));
}

nlohmann::json to_json(const ChangeSet& set) {
  nlohmann::json flat = nlohmann::json::object();  // nlohmann's object keeps keys sorted
  for (const auto& change : set.changes) flat[change.key] = change.value;
  return flat;
}

Result<ChangeSet> change_set_from_json(const nlohmann::json& flat) {
  if (!flat.is_object()) return invalid_change("a stored change set must be a JSON object");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& [key, value] : flat.items()) pairs.emplace_back(key, as_text(value));
  return build(std::move(pairs));
}

nlohmann::json apply_changes(nlohmann::json config, const ChangeSet& set) {
  for (const auto& change : set.changes) {
    const auto [field, entry] = split_key(change.key);
    if (entry.empty()) {
      config[field] = change.value;
      continue;
    }
    if (!config.contains(field) || !config[field].is_object()) {
      config[field] = nlohmann::json::object();
    }
    config[field][entry] = change.value;
  }
  return config;
}

nlohmann::json values_at(const nlohmann::json& config, const ChangeSet& set) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& change : set.changes) {
    const nlohmann::json* v = lookup(config, change.key);
    out[change.key] = v == nullptr ? nlohmann::json() : *v;
  }
  return out;
}

std::vector<std::string> mismatches(const nlohmann::json& config, const nlohmann::json& expected) {
  std::vector<std::string> out;
  for (const auto& [key, want] : expected.items()) {
    const nlohmann::json* have = lookup(config, key);
    const nlohmann::json actual = have == nullptr ? nlohmann::json() : *have;
    // The kubelet omits empty strings from /configz: "" and absent are the same setting.
    const bool both_empty = (actual.is_null() || actual == "") && (want.is_null() || want == "");
    if (actual != want && !both_empty) {
      out.push_back(key + ": want " + want.dump() + ", have " +
                    (have == nullptr ? std::string("(unset)") : actual.dump()));
    }
  }
  return out;
}

Status check_merged(const nlohmann::json& merged) {
  const nlohmann::json* policy = lookup(merged, "cpuManagerPolicy");
  if (policy != nullptr && *policy == "static") {
    const nlohmann::json* cpus = lookup(merged, "reservedSystemCPUs");
    const bool reserved =
        (cpus != nullptr && cpus->is_string() && !cpus->get<std::string>().empty()) ||
        reserves_cpu(merged, "kubeReserved.cpu") || reserves_cpu(merged, "systemReserved.cpu");
    if (!reserved) {
      return invalid_change(
          "cpuManagerPolicy=static needs CPUs reserved for the system, or the kubelet refuses to "
          "start: add --set reservedSystemCPUs=0 (or kubeReserved.cpu / systemReserved.cpu)");
    }
  }
  const nlohmann::json* high = lookup(merged, "imageGCHighThresholdPercent");
  const nlohmann::json* low = lookup(merged, "imageGCLowThresholdPercent");
  if (high != nullptr && low != nullptr && high->is_number() && low->is_number() && *low >= *high) {
    return invalid_change("imageGCLowThresholdPercent (" + low->dump() +
                          ") must be below imageGCHighThresholdPercent (" + high->dump() + ")");
  }
  return ok();
}

}  // namespace fed::reconfig

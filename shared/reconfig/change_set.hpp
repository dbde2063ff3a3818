#pragma once
// A set of KubeletConfiguration changes ("--set field=value" items checked against the
// allow-list) and the pure operations on it: merging it into a config while keeping every other
// field, reading the same fields back from a config or /configz, and comparing.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::reconfig {

// One field to set. `key` is "field" or "field.entry" (featureGates.X,
// evictionHard.memory.available); the entry is everything after the first dot.
struct Change {
  std::string key;
  nlohmann::json value;
};

struct ChangeSet {
  std::vector<Change> changes;           // in the order given, one per key
  std::vector<std::string> state_files;  // kubelet checkpoints to remove, sorted, unique
};

// Parses "field=value" items through the allow-list. Invalid (naming the item) on a bad item, a
// key given twice, or an empty list.
Result<ChangeSet> parse_set_args(const std::vector<std::string>& items);

// The change set as a flat JSON object {key: value}: stored in the Node's annotations and read
// back by change_set_from_json. Keys sorted, so equal sets give equal text.
nlohmann::json to_json(const ChangeSet& set);
Result<ChangeSet> change_set_from_json(const nlohmann::json& flat);

// `config` with every change applied; every other field, and other entries of the maps a change
// touches (featureGates, kubeReserved, ...), unchanged.
nlohmann::json apply_changes(nlohmann::json config, const ChangeSet& set);

// The current values of the set's keys in `config` (a config file or /configz's kubeletconfig):
// {key: value}, null where the field or entry is absent.
nlohmann::json values_at(const nlohmann::json& config, const ChangeSet& set);

// The keys whose value in `config` differs from `expected` ({key: value}, null = absent), each
// as "key: want W, have H". Empty when they all match.
std::vector<std::string> mismatches(const nlohmann::json& config, const nlohmann::json& expected);

// Checks across fields of the config as it would be after the change, the ones the kubelet
// would otherwise reject at start: the static CPU policy needs a CPU reservation, the image GC
// low threshold must be below the high one. Invalid says which --set fixes it.
Status check_merged(const nlohmann::json& merged);

}  // namespace fed::reconfig

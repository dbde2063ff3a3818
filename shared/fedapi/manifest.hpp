#pragma once
// Manifests as the API server takes them: YAML documents (manifests/, samples, user files)
// read as JSON objects, typed the way kubectl reads them (plain true/false/null/numbers become
// JSON values, quoted scalars stay strings, map keys are strings).

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::fedapi {

// Every non-empty document of `yaml` ("---"-separated), in order. Invalid on YAML errors, with
// the line; `source` names the input in messages.
Result<std::vector<nlohmann::json>> parse_manifests(std::string_view yaml,
                                                    std::string_view source = "manifest");

}  // namespace fed::fedapi

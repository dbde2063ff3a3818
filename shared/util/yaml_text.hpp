#pragma once
// JSON values written as block-style YAML: kubectl-fed's -o yaml and the agent's rewritten
// kubelet configuration files. Reading YAML back is fedapi::parse_manifests.

#include <string>

#include <nlohmann/json.hpp>

namespace fed::util {

// Block-style YAML; strings that would read back as another type ("true", "123", "null", "")
// are quoted, so the text reads back as the same JSON. Ends with a newline.
std::string to_yaml_text(const nlohmann::json& value);

}  // namespace fed::util

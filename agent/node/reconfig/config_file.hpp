#pragma once
// The kubelet's configuration file as data: parsed from YAML or JSON into JSON (typed as the
// kubelet reads it) and written back in the same format. Pure; the file operations are in
// kubelet_host.hpp.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::reconfig {

enum class ConfigFormat { Yaml, Json };

struct KubeletConfigText {
  nlohmann::json config;  // the KubeletConfiguration object
  ConfigFormat format = ConfigFormat::Yaml;
};

// Parses one KubeletConfiguration document (YAML, or JSON which the format then keeps).
// Invalid when it is not exactly one document of kind KubeletConfiguration; `source` names the
// file in messages.
Result<KubeletConfigText> parse_kubelet_config(std::string_view text, std::string_view source);

// The text of `config` in `format`: block YAML or indented JSON, newline-terminated. Comments of
// the original are not kept; every field is.
std::string render_kubelet_config(const nlohmann::json& config, ConfigFormat format);

// An empty drop-in: apiVersion and kind only, which changes nothing for the kubelet.
nlohmann::json empty_kubelet_config();

}  // namespace fed::reconfig

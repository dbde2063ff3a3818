#pragma once
// YAML text (one document or a "---" stream) read straight into JSON values, as kubectl reads
// manifests: plain scalars typed by the YAML 1.2 core schema, quoted ones kept as strings.
//
// Built on yaml-cpp's event parser rather than YAML::LoadAll, which loops forever allocating on
// a stream it cannot advance in (yaml-cpp issue 1040: the text "," alone; fixed upstream after
// the 0.7.0 Debian ships). Aliases are expanded, within a budget: a few lines of anchors
// repeating anchors ("billion laughs") would otherwise become gigabytes.

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::util {

// What the whole text, every document together, may expand to in values (scalars, sequences
// and maps), and how deep one document may nest. The budget is the stream's, not each
// document's: 2.7 kB of ten "---" documents just under a per-document budget took 650 MB.
inline constexpr std::size_t kYamlMaxValues = std::size_t{1} << 20;
inline constexpr std::size_t kYamlMaxDepth = 256;

// Every document of `text`, empty ones included as null. Invalid names `source`, the line and
// what is wrong.
Result<std::vector<nlohmann::json>> yaml_documents(std::string_view text, std::string_view source);

}  // namespace fed::util

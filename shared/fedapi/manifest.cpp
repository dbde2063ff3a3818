#include "shared/fedapi/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <regex>
#include <string>

namespace fed::fedapi {
namespace {

// A plain (unquoted) scalar typed by the YAML 1.2 core schema.
nlohmann::json plain_scalar(const std::string& s) {
  static const std::regex kInt("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, kInt)) {
    try {
      return std::stoll(s);
    } catch (const std::out_of_range&) {
      return s;  // too large for int64: keep the text
    }
  }
  if (std::regex_match(s, kFloat)) return std::stod(s);
  return s;
}

nlohmann::json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // "!" is the tag of quoted scalars, "?" of plain ones.
      return node.Tag() == "!" ? nlohmann::json(node.Scalar()) : plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      auto out = nlohmann::json::array();
      for (const auto& item : node) out.push_back(to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      auto out = nlohmann::json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = to_json(kv.second);
      return out;
    }
  }
  return nullptr;
}

}  // namespace

Result<std::vector<nlohmann::json>> parse_manifests(std::string_view yaml,
                                                    std::string_view source) {
  std::vector<nlohmann::json> out;
  try {
    for (const auto& doc : YAML::LoadAll(std::string(yaml))) {
      if (!doc || doc.IsNull()) continue;
      auto json = to_json(doc);
      if (!json.is_object()) {
        return fail(ErrorCode::Invalid, std::string(source) + ": document " +
                                            std::to_string(out.size() + 1) +
                                            " is not a mapping (expected an object manifest)");
      }
      out.push_back(std::move(json));
    }
  } catch (const YAML::Exception& e) {
    return fail(ErrorCode::Invalid, std::string(source) + ": not valid YAML: " + e.what());
  }
  return out;
}

}  // namespace fed::fedapi

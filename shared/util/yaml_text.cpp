#include "shared/util/yaml_text.hpp"

#include <yaml-cpp/yaml.h>

#include <regex>

namespace fed::util {
namespace {

// True when YAML 1.1 or 1.2 would resolve the plain scalar `s` to something other than a
// string (bool, null, number, timestamp-like), or when it cannot be plain at all.
bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  static const std::regex kSpecial(
      "^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|"
      "Off|OFF|y|Y|n|N|[-+]?(?:[0-9][0-9_]*)?\\.?[0-9]*(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|"
      "0o?[0-7_]+|0b[01_]+|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)|[0-9]{4}-[0-9]{2}-[0-9]{2}.*|"
      "[0-9:]+)$");
  return std::regex_match(s, kSpecial);
}

void emit(YAML::Emitter& e, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::object:
      if (v.empty()) {
        e << YAML::Flow << YAML::BeginMap << YAML::EndMap;  // "{}" on the key's line
        break;
      }
      e << YAML::BeginMap;
      for (const auto& [key, value] : v.items()) {
        e << YAML::Key;
        if (needs_quotes(key)) e << YAML::DoubleQuoted;
        e << key << YAML::Value;
        emit(e, value);
      }
      e << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      if (v.empty()) {
        e << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      e << YAML::BeginSeq;
      for (const auto& item : v) emit(e, item);
      e << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (needs_quotes(s)) e << YAML::DoubleQuoted;
      e << s;
      break;
    }
    case nlohmann::json::value_t::boolean:
      e << (v.get<bool>() ? "true" : "false");
      break;
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded:
      e << YAML::Null;
      break;
    default:  // numbers: nlohmann's own formatting round-trips
      e << v.dump();
      break;
  }
}

}  // namespace

std::string to_yaml_text(const nlohmann::json& value) {
  YAML::Emitter e;
  e.SetIndent(2);
  e.SetSeqFormat(YAML::Block);
  e.SetMapFormat(YAML::Block);
  e.SetNullFormat(YAML::LowerNull);  // "null", as kubectl prints it
  emit(e, value);
  return std::string(e.c_str()) + "\n";
}

}  // namespace fed::util

#pragma once
// Text out of JSON that may hold anything (YAML files, foreign input), without json's
// exceptions: dump throws on a string that is not UTF-8, value("k", "") on a member that is not
// a string. Quoting or checking bad input must never become an error of its own.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fed::util {

// Compact (indent < 0) or indented by `indent` spaces.
// Bytes that are not UTF-8 become U+FFFD.
inline std::string json_text(const nlohmann::json& value, int indent = -1) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The member `key` of `object`; nullptr when `object` is no object or has no such member.
inline const nlohmann::json* member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it != object.end() ? &*it : nullptr;
}

// The member `key` of `object`, or a null value when `object` is no object or has no such
// member: lets a chain of lookups into foreign JSON read in place, without copies or throws.
inline const nlohmann::json& field(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json kNull;
  const nlohmann::json* m = member(object, key);
  return m != nullptr ? *m : kNull;
}

// The string member `key` of `object`; "" when `object` is no object, or the member is absent
// or not a string.
inline std::string_view string_field(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : std::string_view{};
}

}  // namespace fed::util

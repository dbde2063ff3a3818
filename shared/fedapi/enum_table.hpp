#pragma once
// Enums spelled as strings in the API: a table of (value, name) pairs, read with an error that
// lists the accepted names and written back by name.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "shared/fedapi/json_fields.hpp"

namespace fed::fedapi {

template <typename E, std::size_t N>
using EnumTable = std::array<std::pair<E, std::string_view>, N>;

// The value named `text`; throws FieldError "<key>: must be one of A, B, not "x"" otherwise.
template <typename E, std::size_t N>
E enum_from_name(const EnumTable<E, N>& table, std::string_view key, const std::string& text) {
  std::string names;
  for (const auto& [value, name] : table) {
    if (name == text) return value;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  throw FieldError(std::string(key) + ": must be one of " + names + ", not \"" + text + "\"");
}

// The name of `value`, or "unknown" for a value outside the table.
template <typename E, std::size_t N>
std::string_view enum_name(const EnumTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "unknown";
}

}  // namespace fed::fedapi

#pragma once
// 32-bit FNV-1a: a short hash that is stable across builds and platforms, which std::hash is
// not, for names and labels derived from longer text (nat chain names, replica labels).

#include <cstdint>
#include <string_view>

namespace fed::util {

constexpr std::uint32_t fnv1a32(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

}  // namespace fed::util

#pragma once
// What every fuzz target shares: the bytes as a string_view, and a check that stops the run
// (abort: libFuzzer and the replay driver both report it) when a property of a parser breaks.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace fed::fuzz {

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits off the first byte: targets with several parsers choose one by it.
inline unsigned char take_selector(std::string_view& input) {
  if (input.empty()) return 0;
  const auto c = static_cast<unsigned char>(input.front());
  input.remove_prefix(1);
  return c;
}

[[noreturn]] inline void property_broken(const char* what) {
  std::fprintf(stderr, "fuzz property broken: %s\n", what);
  std::abort();
}

#define FED_FUZZ_CHECK(cond)                          \
  do {                                                \
    if (!(cond)) ::fed::fuzz::property_broken(#cond); \
  } while (false)

}  // namespace fed::fuzz

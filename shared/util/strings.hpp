#pragma once
// Small string helpers the standard library lacks; all work on bytes (ASCII case rules).

#include <string>
#include <string_view>
#include <vector>

namespace fed::util {

// Whether empty pieces between adjacent separators are kept.
enum class EmptyParts { Keep, Skip };

// Splits `s` at every `sep` character.
std::vector<std::string> split(std::string_view s, char sep, EmptyParts empty = EmptyParts::Keep);

// Joins `parts` with `sep` between them.
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// An ASCII digit, whatever the locale (std::isdigit's is the C library's).
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Removes leading and trailing spaces, tabs, CR and LF.
std::string_view trim(std::string_view s);

// ASCII lower-casing; other bytes are copied unchanged.
std::string to_lower(std::string_view s);

// True when `a` and `b` are equal ignoring ASCII case.
bool iequals(std::string_view a, std::string_view b);

// Replaces every occurrence of `from` (non-empty) with `to`.
std::string replace_all(std::string_view s, std::string_view from, std::string_view to);

// Quotes `s` for a POSIX shell with single quotes, for messages that show a command to run.
std::string shell_quote(std::string_view s);

}  // namespace fed::util

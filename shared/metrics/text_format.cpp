#include "shared/metrics/text_format.hpp"
#include "shared/util/strings.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace fed::metrics {
namespace {

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

}  // namespace

std::string escape_help(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_label_value(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Integers up to 2^53 print exactly without an exponent, as counters usually are.
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    return std::to_string(static_cast<std::int64_t>(v));
  }
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

bool valid_metric_name(std::string_view s) {
  if (s.empty() || !(is_alpha(s[0]) || s[0] == ':')) return false;
  for (char c : s) {
    if (!(is_alpha(c) || util::is_digit(c) || c == ':')) return false;
  }
  return true;
}

bool valid_label_name(std::string_view s) {
  if (s.empty() || !is_alpha(s[0]) || s.starts_with("__")) return false;
  for (char c : s) {
    if (!(is_alpha(c) || util::is_digit(c))) return false;
  }
  return true;
}

}  // namespace fed::metrics

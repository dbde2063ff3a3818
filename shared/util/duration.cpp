#include "shared/util/duration.hpp"
#include "shared/util/strings.hpp"

#include <cstdint>
#include <limits>
#include <optional>

namespace fed::util {
namespace {

constexpr std::uint64_t kMaxMagnitude = std::uint64_t{1} << 63;  // |INT64_MIN|

struct Unit {
  std::string_view name;
  std::uint64_t nanos;
};

constexpr Unit kUnits[] = {
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1'000},  // U+03BC Greek small letter mu
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
};

std::optional<std::uint64_t> unit_nanos(std::string_view name) {
  for (const Unit& u : kUnits) {
    if (u.name == name) return u.nanos;
  }
  return std::nullopt;
}

Unexpected invalid(std::string_view input, std::string_view why) {
  return fail(ErrorCode::Invalid, "invalid duration \"" + std::string(input) +
                                      "\": " + std::string(why) +
                                      " (write a number and a unit such as \"30s\", \"2m\", "
                                      "\"1h30m\" or \"500ms\"; units: ns, us, ms, s, m, h)");
}

// Appends `v` with `digits` fractional digits, trailing zeros (and a bare point) removed.
void append_fixed(std::string& out, std::uint64_t v, int digits) {
  std::uint64_t div = 1;
  for (int i = 0; i < digits; ++i) div *= 10;
  out += std::to_string(v / div);
  std::uint64_t frac = v % div;
  if (frac == 0) return;
  std::string f = std::to_string(frac);
  f.insert(0, static_cast<std::size_t>(digits) - f.size(), '0');
  while (!f.empty() && f.back() == '0') f.pop_back();
  out += "." + f;
}

}  // namespace

Result<std::chrono::nanoseconds> parse_duration(std::string_view input) {
  std::string_view s = input;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return invalid(input, "empty");

  std::uint64_t total = 0;
  while (!s.empty()) {
    // Integer part; overflow is an error.
    std::uint64_t whole = 0;
    bool has_whole = false;
    while (!s.empty() && is_digit(s.front())) {
      const std::uint64_t digit = static_cast<std::uint64_t>(s.front() - '0');
      if (whole > (kMaxMagnitude - digit) / 10) return invalid(input, "out of range");
      whole = whole * 10 + digit;
      has_whole = true;
      s.remove_prefix(1);
    }
    // Fraction; digits beyond uint64 precision are dropped, as Go does.
    std::uint64_t frac = 0;
    double scale = 1.0;
    bool has_frac = false;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      while (!s.empty() && is_digit(s.front())) {
        has_frac = true;
        const std::uint64_t digit = static_cast<std::uint64_t>(s.front() - '0');
        if (!overflow && frac <= (std::numeric_limits<std::uint64_t>::max() / 2 - digit) / 10) {
          frac = frac * 10 + digit;
          scale *= 10;
        } else {
          overflow = true;
        }
        s.remove_prefix(1);
      }
    }
    if (!has_whole && !has_frac) return invalid(input, "expected a number");

    std::size_t unit_len = 0;
    while (unit_len < s.size() && s[unit_len] != '.' && !is_digit(s[unit_len])) ++unit_len;
    if (unit_len == 0) return invalid(input, "missing unit");
    const std::string_view unit_name = s.substr(0, unit_len);
    s.remove_prefix(unit_len);
    const auto unit = unit_nanos(unit_name);
    if (!unit) return invalid(input, "unknown unit \"" + std::string(unit_name) + "\"");

    if (whole > kMaxMagnitude / *unit) return invalid(input, "out of range");
    std::uint64_t v = whole * *unit;
    if (frac > 0) {
      v += static_cast<std::uint64_t>(static_cast<double>(frac) *
                                      (static_cast<double>(*unit) / scale));
      if (v > kMaxMagnitude) return invalid(input, "out of range");
    }
    total += v;
    if (total > kMaxMagnitude) return invalid(input, "out of range");
  }
  if (negative) {
    return std::chrono::nanoseconds(total == kMaxMagnitude
                                        ? std::numeric_limits<std::int64_t>::min()
                                        : -static_cast<std::int64_t>(total));
  }
  if (total > kMaxMagnitude - 1) return invalid(input, "out of range");
  return std::chrono::nanoseconds(static_cast<std::int64_t>(total));
}

std::string format_duration(std::chrono::nanoseconds d) {
  const std::int64_t count = d.count();
  if (count == 0) return "0s";
  std::string out = count < 0 ? "-" : "";
  // Magnitude as unsigned so that INT64_MIN does not overflow.
  const std::uint64_t u = count < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(count)
                                    : static_cast<std::uint64_t>(count);
  if (u < 1'000) {
    out += std::to_string(u) + "ns";
  } else if (u < 1'000'000) {
    append_fixed(out, u, 3);
    out += "\xC2\xB5s";
  } else if (u < 1'000'000'000) {
    append_fixed(out, u, 6);
    out += "ms";
  } else {
    const std::uint64_t seconds_nanos = u % 60'000'000'000;
    const std::uint64_t minutes = u / 60'000'000'000;
    if (minutes >= 60) out += std::to_string(minutes / 60) + "h";
    if (minutes > 0) out += std::to_string(minutes % 60) + "m";
    append_fixed(out, seconds_nanos, 9);
    out += "s";
  }
  return out;
}

Result<std::chrono::milliseconds> parse_positive_duration(std::string_view value,
                                                          std::string_view flag) {
  auto d = parse_duration(value);
  if (!d || d->count() <= 0) {
    return fail(ErrorCode::Invalid, "invalid " + std::string(flag) + " \"" + std::string(value) +
                                        "\": use a positive duration such as 30s or 2m");
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

}  // namespace fed::util

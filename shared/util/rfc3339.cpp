#include "shared/util/rfc3339.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>

namespace fed::util {
namespace {

using std::chrono::system_clock;

// Reads exactly `n` decimal digits at `pos`, advancing it.
std::optional<int> digits(std::string_view s, std::size_t& pos, std::size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool expect(std::string_view s, std::size_t& pos, std::string_view chars) {
  if (pos >= s.size() || chars.find(s[pos]) == std::string_view::npos) return false;
  ++pos;
  return true;
}

Unexpected bad(std::string_view text, std::string_view why) {
  return fail(ErrorCode::Invalid, fmt::format("invalid RFC 3339 timestamp \"{}\": {} (expected "
                                              "e.g. 2024-05-01T12:00:00Z)",
                                              text, why));
}

}  // namespace

Result<system_clock::time_point> parse_rfc3339(std::string_view text) {
  std::size_t p = 0;
  const auto year = digits(text, p, 4);
  if (!year || !expect(text, p, "-")) return bad(text, "bad year");
  const auto month = digits(text, p, 2);
  if (!month || !expect(text, p, "-")) return bad(text, "bad month");
  const auto day = digits(text, p, 2);
  if (!day || !expect(text, p, "Tt")) return bad(text, "bad day or missing 'T'");
  const auto hour = digits(text, p, 2);
  if (!hour || !expect(text, p, ":")) return bad(text, "bad hour");
  const auto minute = digits(text, p, 2);
  if (!minute || !expect(text, p, ":")) return bad(text, "bad minute");
  const auto second = digits(text, p, 2);
  if (!second) return bad(text, "bad second");

  const std::chrono::year_month_day ymd{std::chrono::year{*year},
                                        std::chrono::month{static_cast<unsigned>(*month)},
                                        std::chrono::day{static_cast<unsigned>(*day)}};
  if (!ymd.ok()) return bad(text, "no such date");
  if (*hour > 23 || *minute > 59 || *second > 59) return bad(text, "time out of range");

  std::int64_t nanos = 0;
  if (p < text.size() && text[p] == '.') {
    ++p;
    std::size_t n = 0;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
      if (n < 9) nanos = nanos * 10 + (text[p] - '0');
      ++n;
      ++p;
    }
    if (n == 0) return bad(text, "empty fraction");
    for (std::size_t i = n; i < 9; ++i) nanos *= 10;
  }

  std::chrono::minutes offset{0};
  if (expect(text, p, "Zz")) {
    // UTC
  } else if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
    const bool negative = text[p] == '-';
    ++p;
    const auto oh = digits(text, p, 2);
    if (!oh || !expect(text, p, ":")) return bad(text, "bad zone offset");
    const auto om = digits(text, p, 2);
    if (!om || *oh > 23 || *om > 59) return bad(text, "bad zone offset");
    offset = std::chrono::minutes(*oh * 60 + *om);
    if (negative) offset = -offset;
  } else {
    return bad(text, "missing zone ('Z' or +hh:mm)");
  }
  if (p != text.size()) return bad(text, "trailing characters");

  // In seconds first: years 0000-9999 fit, while system_clock's nanoseconds span only
  // 1678-2262, where an expiry such as 9999-12-31 would overflow. Such instants saturate.
  const std::chrono::sys_seconds utc = std::chrono::sys_days{ymd} + std::chrono::hours(*hour) +
                                       std::chrono::minutes(*minute) +
                                       std::chrono::seconds(*second) - offset;
  using Seconds = std::chrono::seconds;
  const auto latest = std::chrono::floor<Seconds>(system_clock::time_point::max()) - Seconds(1);
  const auto earliest = std::chrono::ceil<Seconds>(system_clock::time_point::min()) + Seconds(1);
  if (utc > latest) return system_clock::time_point::max();
  if (utc < earliest) return system_clock::time_point::min();
  return std::chrono::time_point_cast<system_clock::duration>(utc) +
         std::chrono::duration_cast<system_clock::duration>(std::chrono::nanoseconds(nanos));
}

namespace {

// `digits` of the second's fraction: 0, 3 or 6.
std::string format_utc(system_clock::time_point t, int digits) {
  const auto us = std::chrono::floor<std::chrono::microseconds>(t);
  const auto secs = std::chrono::floor<std::chrono::seconds>(us);
  const auto days = std::chrono::floor<std::chrono::days>(secs);
  const std::chrono::year_month_day ymd{days};
  const std::chrono::hh_mm_ss hms{secs - days};
  std::string text =
      fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  hms.hours().count(), hms.minutes().count(), hms.seconds().count());
  const auto fraction = (us - secs).count();
  if (digits == 3) text += fmt::format(".{:03}", fraction / 1000);
  if (digits == 6) text += fmt::format(".{:06}", fraction);
  return text + "Z";
}

}  // namespace

std::string format_rfc3339(system_clock::time_point t) {
  return format_utc(t, 0);
}

std::string format_rfc3339_millis(system_clock::time_point t) {
  return format_utc(t, 3);
}

std::string format_rfc3339_micros(system_clock::time_point t) {
  return format_utc(t, 6);
}

}  // namespace fed::util

#include "shared/util/quantity.hpp"
#include "shared/util/strings.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace fed::util {
namespace {

struct Suffix {
  std::string_view name;
  int exp10;
  int exp2;
};

constexpr Suffix kSuffixes[] = {
    {"Ki", 0, 10}, {"Mi", 0, 20}, {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"", 0, 0},    {"k", 3, 0},   {"M", 6, 0},
    {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},
};

constexpr int kMaxDigits = 19;  // every 19-digit number fits in uint64

Unexpected invalid_quantity(std::string_view input, std::string_view why) {
  return fail(
      ErrorCode::Invalid,
      "invalid quantity \"" + std::string(input) + "\": " + std::string(why) +
          " (write a number with an optional suffix: Ki, Mi, Gi, Ti, Pi, Ei; "
          "n, u, m, k, M, G, T, P, E; or an exponent such as e3, e.g. \"4Gi\" or \"500m\")");
}

// Parses a decimal exponent suffix "e<int>" / "E<int>"; empty if `s` is not one.
std::optional<int> exponent_suffix(std::string_view s) {
  if (s.size() < 2 || (s[0] != 'e' && s[0] != 'E')) return std::nullopt;
  std::string_view rest = s.substr(1);
  bool negative = false;
  if (rest.front() == '+' || rest.front() == '-') {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  if (rest.empty() || rest.size() > 4) return std::nullopt;
  int v = 0;
  for (char c : rest) {
    if (!is_digit(c)) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

std::optional<std::uint64_t> pow10(int k) {
  std::uint64_t v = 1;
  for (int i = 0; i < k; ++i) {
    if (__builtin_mul_overflow(v, std::uint64_t{10}, &v)) return std::nullopt;
  }
  return v;
}

}  // namespace

Result<Quantity> parse_quantity(std::string_view input) {
  std::string_view s = input;
  Quantity q;
  q.text_ = std::string(input);
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    q.negative_ = s.front() == '-';
    s.remove_prefix(1);
  }
  // Number: digits with at most one decimal point; significant digits go into the mantissa.
  int digits_seen = 0;
  int significant = 0;
  bool seen_point = false;
  int pending_zeros = 0;  // zeros after the last non-zero digit, not yet in the mantissa
  while (!s.empty() && (is_digit(s.front()) || (s.front() == '.' && !seen_point))) {
    const char c = s.front();
    s.remove_prefix(1);
    if (c == '.') {
      seen_point = true;
      continue;
    }
    ++digits_seen;
    if (seen_point) --q.exp10_;
    if (c == '0') {
      if (significant > 0) ++pending_zeros;
      continue;
    }
    // Flush held-back zeros, then the digit.
    for (; pending_zeros > 0; --pending_zeros) {
      if (++significant > kMaxDigits)
        return invalid_quantity(input, "more than 19 significant digits");
      q.mantissa_ *= 10;
    }
    if (++significant > kMaxDigits)
      return invalid_quantity(input, "more than 19 significant digits");
    q.mantissa_ = q.mantissa_ * 10 + static_cast<std::uint64_t>(c - '0');
  }
  q.exp10_ += pending_zeros;  // trailing zeros of the whole number become the exponent
  if (digits_seen == 0) return invalid_quantity(input, "expected a number");

  if (const auto e = exponent_suffix(s)) {
    q.exp10_ += *e;
    return q;
  }
  for (const Suffix& suffix : kSuffixes) {
    if (suffix.name == s) {
      q.exp10_ += suffix.exp10;
      q.exp2_ = suffix.exp2;
      return q;
    }
  }
  return invalid_quantity(input, "unknown suffix \"" + std::string(s) + "\"");
}

Result<std::int64_t> Quantity::scaled(int scale10) const {
  const auto too_large = [&] {
    return fail(ErrorCode::Invalid, "quantity \"" + text_ + "\" is too large");
  };
  if (mantissa_ == 0) return std::int64_t{0};
  std::uint64_t magnitude = mantissa_;
  int e10 = exp10_ + scale10;
  int e2 = exp2_;
  if (e10 >= 0) {
    const auto p = pow10(e10);
    if (!p || __builtin_mul_overflow(magnitude, *p, &magnitude)) return too_large();
    for (; e2 > 0; --e2) {
      if (__builtin_mul_overflow(magnitude, std::uint64_t{2}, &magnitude)) return too_large();
    }
  } else {
    // magnitude * 2^e2 / (2^k * 5^k): cancel common twos first so the numerator stays small.
    int k = -e10;
    std::uint64_t denominator = 1;
    const int cancelled = std::min(k, e2);
    const int twos = k - cancelled;
    e2 -= cancelled;
    for (; e2 > 0; --e2) {
      if (__builtin_mul_overflow(magnitude, std::uint64_t{2}, &magnitude)) return too_large();
    }
    for (int i = 0; i < k && denominator != 0; ++i) {
      if (__builtin_mul_overflow(denominator, std::uint64_t{5}, &denominator)) denominator = 0;
    }
    for (int i = 0; i < twos && denominator != 0; ++i) {
      if (__builtin_mul_overflow(denominator, std::uint64_t{2}, &denominator)) denominator = 0;
    }
    // A denominator beyond uint64 exceeds any numerator: the result rounds up to 1.
    magnitude = denominator == 0 ? 1 : magnitude / denominator + (magnitude % denominator != 0);
  }
  if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return too_large();
  }
  const auto v = static_cast<std::int64_t>(magnitude);
  return negative_ ? -v : v;
}

Result<std::int64_t> Quantity::value() const {
  return scaled(0);
}

Result<std::int64_t> Quantity::milli_value() const {
  return scaled(3);
}

double Quantity::as_double() const {
  const double v = static_cast<double>(mantissa_) * std::pow(10.0, exp10_) * std::ldexp(1.0, exp2_);
  return negative_ ? -v : v;
}

}  // namespace fed::util

#pragma once
// Kubernetes resource quantities ("4Gi", "500m", "1.5", "2e3", "128974848"), as
// k8s.io/apimachinery's resource.ParseQuantity reads them, for flags like --share-memory.

#include <cstdint>
#include <string>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::util {

// A parsed quantity: sign * mantissa * 10^exp10 * 2^exp2, kept exact.
class Quantity final {
 public:
  // The value rounded up (away from zero) to a whole unit, as Quantity.Value() does:
  // "1.5" -> 2, "100m" -> 1, "4Gi" -> 4294967296. Invalid if it does not fit in int64.
  Result<std::int64_t> value() const;

  // The value in thousandths, rounded up, as Quantity.MilliValue(): "100m" -> 100, "2" -> 2000.
  Result<std::int64_t> milli_value() const;

  // The value as a double, for display and ratios; not exact.
  double as_double() const;

  // The text that was parsed, for messages.
  const std::string& text() const { return text_; }

 private:
  friend Result<Quantity> parse_quantity(std::string_view s);
  Result<std::int64_t> scaled(int scale10) const;

  std::string text_;
  bool negative_ = false;
  std::uint64_t mantissa_ = 0;
  int exp10_ = 0;
  int exp2_ = 0;
};

// Parses `<sign?><digits>[.<digits>]<suffix?>` where the suffix is a binary SI one
// (Ki Mi Gi Ti Pi Ei), a decimal SI one (n u m k M G T P E) or a decimal exponent (e3, E-2).
// Suffixes are case-sensitive ("m" is milli, "M" is mega). An Invalid error quotes the input
// and lists the accepted suffixes. At most 19 significant digits are accepted.
Result<Quantity> parse_quantity(std::string_view s);

}  // namespace fed::util

#pragma once
// Durations written as Go's time.ParseDuration reads them ("30s", "2m", "1h30m", "500ms",
// "1.5h", "-2m"), which is what kubectl users type for --timeout and --request-timeout.

#include <chrono>
#include <string>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::util {

// Parses a sequence of decimal numbers, each with an optional fraction and a unit
// (ns, us, µs, μs, ms, s, m, h), with an optional leading sign; "0" alone needs no unit.
// An Invalid error quotes the input and says which units are accepted; values beyond
// about 292 years are Invalid (they overflow int64 nanoseconds, as in Go).
Result<std::chrono::nanoseconds> parse_duration(std::string_view s);

// A flag's value that must be a positive duration, to the millisecond: Invalid
// `invalid <flag> "<value>": use a positive duration such as 30s or 2m` otherwise.
Result<std::chrono::milliseconds> parse_positive_duration(std::string_view value,
                                                          std::string_view flag);

// Formats like Go's Duration.String(): "1h30m0s", "2m0s", "500ms", "1.5µs", "0s".
std::string format_duration(std::chrono::nanoseconds d);

}  // namespace fed::util

#pragma once
// RFC 3339 timestamps as Kubernetes writes them (metav1.Time, ExecCredential expiry).

#include <chrono>
#include <string>
#include <string_view>

#include "shared/result/result.hpp"

namespace fed::util {

// Parses "2024-05-01T12:00:00Z", "...T12:00:00.123456789+02:00" etc. (fraction up to
// nanoseconds, 'Z' or a numeric offset). An Invalid error quotes the text and what is wrong.
// Instants beyond what system_clock holds (before 1678 or after 2261 with libstdc++'s
// nanoseconds) saturate to time_point::min() or max(): "9999-12-31T23:59:59Z" means never.
Result<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

// Formats `t` in UTC with whole seconds: "2024-05-01T12:00:00Z".
std::string format_rfc3339(std::chrono::system_clock::time_point t);
// The same with milliseconds, "2024-05-01T12:00:00.042Z": instants that are compared with
// others (audit logs, a takeover) and not only read by people.
std::string format_rfc3339_millis(std::chrono::system_clock::time_point t);
// With microseconds, "2024-05-01T12:00:00.042117Z": instants a benchmark subtracts.
std::string format_rfc3339_micros(std::chrono::system_clock::time_point t);

}  // namespace fed::util

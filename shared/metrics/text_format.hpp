#pragma once
// Pieces of the Prometheus text exposition format 0.0.4, shared by the Registry's renderer
// and its tests.

#include <string>
#include <string_view>

namespace fed::metrics {

// The Content-Type a /metrics handler sends with Registry::render().
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

// Escapes a HELP text: backslash and newline.
std::string escape_help(std::string_view s);

// Escapes a label value: backslash, double quote and newline.
std::string escape_label_value(std::string_view s);

// Formats a sample value: integers without a fraction ("3", "-2"), others in the shortest
// form that reads back exactly ("0.25", "1e-07"), and "+Inf", "-Inf", "NaN".
std::string format_value(double v);

// True for a valid metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool valid_metric_name(std::string_view s);

// True for a valid, non-reserved label name: [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__".
bool valid_label_name(std::string_view s);

}  // namespace fed::metrics

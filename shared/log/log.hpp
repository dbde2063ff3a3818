#pragma once
// Process-wide logging set-up on top of spdlog: human text on a terminal, one JSON object
// per line for log collectors. Code logs with spdlog::info(...) etc. after init().

#include <string_view>

#include "shared/result/result.hpp"

namespace fed::log {

enum class Format { Text, Json };

struct Options {
  Format format = Format::Text;
  // 0 = info, 1 = debug, 2+ = trace; negative = warnings only (kubectl's -v convention).
  int verbosity = 0;
  // Logs go to stderr so that stdout stays parsable (-o json).
};

// Parses "text" or "json"; an Invalid error names the flag and the accepted values.
Result<Format> parse_format(std::string_view s);

// Installs the default logger. Safe to call more than once; the last call wins.
void init(const Options& options);

}  // namespace fed::log

#pragma once
// kubectl's standard flags, which kubectl-fed parses itself: valid anywhere before "--",
// before or after the command, in every spelling kubectl accepts ("-v=4", "-v 4", "--v=4",
// "-ojson", "-n=ns", "--output json").

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::plugin {

enum class OutputFormat { Table, Yaml, Json };

struct GlobalOptions {
  std::string kubeconfig;                     // --kubeconfig; empty = $KUBECONFIG, ~/.kube/config
  std::string context;                        // --context; empty = current-context
  std::string namespace_name;                 // -n/--namespace; empty = the context's
  OutputFormat output = OutputFormat::Table;  // -o/--output
  int verbosity = 0;                          // -v/--v, kubectl's levels (6 logs requests)
  std::chrono::milliseconds request_timeout{0};  // --request-timeout; 0 = none
  // Every --context in order: commands that act on several clusters (reconfigure) take them
  // all; the others use `context`, the last one, as kubectl does.
  std::vector<std::string> contexts;
};

// One global flag, for the parser, help, completion and "did you mean".
struct GlobalFlag {
  std::string_view short_name;  // "-n", or empty
  std::string_view long_name;   // "--namespace"
  std::string_view value_name;  // "string", "duration", "int"
  std::string_view help;
};

// Every global flag, in help order (--help itself is not listed).
const std::vector<GlobalFlag>& global_flags();

// Every spelling of the global flags plus -h/--help, for suggestions.
std::vector<std::string> global_flag_names();

// Parses -o: table, yaml or json. Invalid names the value and suggests the closest format.
Result<OutputFormat> parse_output_format(std::string_view s);
std::string_view to_string(OutputFormat f);

// Parses --request-timeout as kubectl does: a Go duration ("30s", "1m30s"), or a bare number
// of seconds; "0" means no timeout. Negative values are Invalid.
Result<std::chrono::milliseconds> parse_request_timeout(std::string_view s);

// The result of pulling the global flags out of the command line.
struct ScannedArgs {
  GlobalOptions global;
  std::vector<std::string> rest;  // everything else, in order ("--" and what follows kept)
};

// Removes the global flags (and their values) from `args` (argv without the program name) and
// parses them into GlobalOptions. A later occurrence overrides an earlier one, as in kubectl.
// Invalid errors name the flag: a missing value, a bad -o, -v or --request-timeout value.
Result<ScannedArgs> scan_global_flags(const std::vector<std::string>& args);

// Maps kubectl's -v level to fed::log's: 0 -> warnings only, 1-3 -> info, 4-5 -> debug,
// 6+ -> trace.
int log_verbosity(int kubectl_level);

}  // namespace fed::plugin

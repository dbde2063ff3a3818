#pragma once
// kubectl-fed's command line: global flags anywhere, one verb from the command table, its own
// flags, help, and the mapping of every outcome to a documented exit code (exit_codes.hpp).

#include <iosfwd>
#include <string>
#include <vector>

#include "plugin/cli/output.hpp"

namespace fed::plugin {

// Runs kubectl-fed with `args` (argv without the program name), printing results to `out` and
// errors, logs and progress to `err`; returns the process exit code. Never throws for bad
// input: usage errors print "error: ..." with the closest valid spelling and return 2.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            Progress progress);

}  // namespace fed::plugin

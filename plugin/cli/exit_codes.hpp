#pragma once
// kubectl-fed's documented exit codes (README "Exit codes"); scripts branch on them.

#include "shared/result/result.hpp"

namespace fed::plugin {

enum class ExitCode : int {
  Ok = 0,
  Failure = 1,      // the operation failed (cluster state, internal error)
  Usage = 2,        // bad flags, arguments or input files; nothing was changed
  Unavailable = 3,  // a cluster could not be reached or timed out
  Forbidden = 4,    // authentication or authorization refused
  NotFound = 5,     // a named object or context does not exist
  Conflict = 6,     // a concurrent change won; re-run
};

// Maps an error to the exit code a script should see.
ExitCode exit_code_for(const Error& error);

}  // namespace fed::plugin

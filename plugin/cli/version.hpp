#pragma once
// kubectl fed version: the client's version and git commit, and the API server's version
// when it can be reached.

#include "plugin/cli/command.hpp"

namespace fed::plugin {

struct VersionOptions {
  bool client_only = false;  // --client: do not contact the server
};

// Prints the versions. The client version is printed even when the server cannot be reached;
// that failure is then returned (exit code 3 for an unreachable server, as kubectl fails).
Status run_version(const GlobalOptions& global, const VersionOptions& options, Output& out);

// The command table entry.
extern const Command kVersionCommand;

}  // namespace fed::plugin

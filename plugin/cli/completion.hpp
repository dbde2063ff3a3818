#pragma once
// kubectl fed completion bash|zsh: shell completion scripts for the kubectl-fed binary,
// generated from the command table (verbs, their flags and arguments, the global flags).

#include <string>

#include "plugin/cli/command.hpp"

namespace fed::plugin {

enum class Shell { Bash, Zsh };

struct CompletionOptions {
  Shell shell = Shell::Bash;
};

// Writes the script for options.shell to stdout (whatever -o says: it is a script).
Status run_completion(const GlobalOptions& global, const CompletionOptions& options, Output& out);

// The scripts themselves.
std::string bash_completion_script();
std::string zsh_completion_script();

// The command table entry.
extern const Command kCompletionCommand;

}  // namespace fed::plugin

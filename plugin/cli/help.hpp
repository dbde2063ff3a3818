#pragma once
// kubectl-style help text, generated from the command table and each command's CLI11 flags so
// that help, completion and the parser cannot disagree.

#include <string>
#include <vector>

#include "plugin/cli/command.hpp"

namespace fed::plugin {

// One flag of a command as declared by its wire function.
struct FlagInfo {
  std::string short_name;  // "-c" or empty
  std::string long_name;   // "--client"
  std::string value_name;  // "string", "int", ...; empty for a switch
  std::string help;
};

// The flags `command` declares, in declaration order (without --help).
std::vector<FlagInfo> command_flags(const Command& command);

// `kubectl fed --help`: what the plugin is, the commands, the global flags and the exit codes.
std::string top_level_help();

// `kubectl fed <command> --help`: description, usage, examples, its flags and the global flags.
std::string command_help(const Command& command);

}  // namespace fed::plugin

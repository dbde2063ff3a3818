#pragma once
// The command table: every verb kubectl-fed offers, in one place. Adding a verb is its own
// plugin/<family>/<verb>.{hpp,cpp} (defining k<Verb>Command), one line in commands.cpp and its
// source in plugin/<family>/CMakeLists.txt.

#include <string_view>
#include <vector>

#include "plugin/cli/command.hpp"

namespace fed::plugin {

// All commands, sorted by name.
const std::vector<const Command*>& commands();

// The command named `name`, or nullptr.
const Command* find_command(std::string_view name);

// The names of all commands, for suggestions and completion.
std::vector<std::string> command_names();

}  // namespace fed::plugin

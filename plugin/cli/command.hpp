#pragma once
// A kubectl-fed command as the command table (commands.hpp) lists it. Each command lives in
// plugin/<family>/<verb>.{hpp,cpp}: an options struct, run_<verb>(const GlobalOptions&,
// const <Verb>Options&, Output&) -> Status that works without a parser, and a wire function
// that declares its flags on a CLI11 app and returns how to run it once parsed.

#include <functional>
#include <string_view>
#include <vector>

#include "plugin/cli/global_options.hpp"
#include "plugin/cli/output.hpp"
#include "shared/result/result.hpp"

namespace CLI {
class App;
}

namespace fed::plugin {

// Runs a parsed command; the options it captured are already filled in.
using Runner = std::function<Status(const GlobalOptions&, Output&)>;

struct Command {
  std::string_view name;                     // the verb: "version"
  std::string_view summary;                  // one line for the command list
  std::string_view description;              // the paragraph that opens its --help
  std::string_view usage;                    // after "kubectl fed ": "version [--client]"
  std::string_view examples;                 // indented "# comment" and command lines
  std::vector<std::string_view> arg_values;  // completion candidates for its positionals
  // Declares the flags and positionals on `app` (never -n, -o, -v or a global's long name)
  // and returns the runner that reads them after parsing.
  Runner (*wire)(CLI::App& app);
};

}  // namespace fed::plugin

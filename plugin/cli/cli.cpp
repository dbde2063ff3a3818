#include "plugin/cli/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <ostream>

#include "plugin/cli/commands.hpp"
#include "plugin/cli/exit_codes.hpp"
#include "plugin/cli/global_options.hpp"
#include "plugin/cli/help.hpp"
#include "shared/log/log.hpp"
#include "shared/util/edit_distance.hpp"

namespace fed::plugin {
namespace {

constexpr std::string_view kUsageHint = "See 'kubectl fed --help' for usage.";

int usage_error(std::ostream& err, const std::string& message, std::string_view hint = kUsageHint) {
  err << "error: " << message << "\n" << hint << "\n";
  return static_cast<int>(ExitCode::Usage);
}

// "; did you mean "x"?" or nothing.
std::string did_you_mean(std::string_view input, const std::vector<std::string>& candidates) {
  auto match = util::closest_match(input, candidates);
  return match ? "; did you mean \"" + *match + "\"?" : "";
}

bool is_help_flag(const std::string& a) {
  return a == "-h" || a == "--help";
}

// The flag part of "--name=value".
std::string flag_name(const std::string& arg) {
  return arg.substr(0, arg.find('='));
}

std::string unknown_flag(const std::string& arg, std::vector<std::string> candidates,
                         std::string_view where) {
  return "unknown flag \"" + flag_name(arg) + "\" for \"" + std::string(where) + "\"" +
         did_you_mean(flag_name(arg), candidates);
}

// What a value of CLI11's type name looks like, for people.
std::string expected_value(const std::string& type_name) {
  if (type_name == "INT") return "a whole number";
  if (type_name == "UINT") return "a whole number, 0 or more";
  if (type_name == "FLOAT") return "a number";
  return "a value of type " + type_name;
}

// CLI11's parse errors in kubectl's words: the flag, the value and what it takes. CLI11 says
// "Could not convert: --x = abc" and "--x: 1 required TEXT missing".
std::string parse_error_message(const CLI::ParseError& e, const CLI::App& app) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    const std::string prefix = "Could not convert: ";
    const std::size_t eq = what.find(" = ");
    if (what.rfind(prefix, 0) == 0 && eq != std::string::npos) {
      const std::string flag = what.substr(prefix.size(), eq - prefix.size());
      const std::string value = what.substr(eq + 3);
      std::string expected = "another value";
      try {
        expected = expected_value(app.get_option(flag)->get_type_name());
      } catch (const CLI::Error&) {
      }
      return "invalid value \"" + value + "\" for " + flag + ": expected " + expected;
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos && what.find(" missing", colon) != std::string::npos) {
      const std::string flag = what.substr(0, colon);
      return "flag " + flag + " needs a value (" + flag + "=VALUE)";
    }
  }
  return what;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            Progress progress) {
  auto scanned = scan_global_flags(args);
  if (!scanned) return usage_error(err, scanned.error().message());
  const GlobalOptions& global = scanned->global;
  std::vector<std::string> rest = std::move(scanned->rest);

  // The verb is the first word; only -h/--help may come before it.
  const auto dash_dash = std::find(rest.begin(), rest.end(), "--");
  const bool help = std::any_of(rest.begin(), dash_dash, is_help_flag);
  std::size_t verb_at = 0;
  for (; verb_at < rest.size() && rest[verb_at] != "--"; ++verb_at) {
    const std::string& a = rest[verb_at];
    if (is_help_flag(a)) continue;
    if (!a.empty() && a[0] == '-') {
      return usage_error(err, unknown_flag(a, global_flag_names(), "kubectl fed"));
    }
    break;
  }
  // "kubectl fed -- status": the end of the flags, then the verb.
  if (verb_at < rest.size() && rest[verb_at] == "--" && verb_at + 1 < rest.size()) {
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(verb_at));
  }
  if (verb_at >= rest.size() || rest[verb_at] == "--") {
    out << top_level_help();
    return static_cast<int>(ExitCode::Ok);
  }
  std::string verb = rest[verb_at];
  rest.erase(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(verb_at) + 1);

  // "kubectl fed help [command]".
  bool help_for_verb = help;
  if (verb == "help") {
    const auto next = std::find_if(rest.begin(), rest.end(),
                                   [](const std::string& a) { return a.empty() || a[0] != '-'; });
    if (next == rest.end()) {
      out << top_level_help();
      return static_cast<int>(ExitCode::Ok);
    }
    verb = *next;
    help_for_verb = true;
  }

  const Command* command = find_command(verb);
  if (command == nullptr) {
    return usage_error(err, "unknown command \"" + verb + "\" for \"kubectl fed\"" +
                                did_you_mean(verb, command_names()));
  }
  if (help_for_verb) {
    out << command_help(*command);
    return static_cast<int>(ExitCode::Ok);
  }

  const std::string where = "kubectl fed " + std::string(command->name);
  const std::string hint = "See '" + where + " --help' for usage.";
  CLI::App app{std::string(command->summary), where};
  app.set_help_flag();  // help is handled above, with kubectl's layout
  app.allow_extras();   // leftovers are reported below, with a suggestion
  Runner runner = command->wire(app);
  try {
    std::vector<std::string> reversed(rest.rbegin(), rest.rend());  // CLI11 pops from the back
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return usage_error(err, where + ": " + parse_error_message(e, app), hint);
  }
  const std::vector<std::string> extras = app.remaining();
  if (!extras.empty()) {
    const std::string& first = extras.front();
    if (!first.empty() && first[0] == '-' && first != "--") {
      std::vector<std::string> candidates = global_flag_names();
      for (const FlagInfo& f : command_flags(*command)) candidates.push_back(f.long_name);
      return usage_error(err, unknown_flag(first, candidates, where), hint);
    }
    return usage_error(err, "unexpected argument \"" + first + "\" for \"" + where + "\"", hint);
  }

  log::init({log::Format::Text, log_verbosity(global.verbosity)});
  Output output(out, err, global.output, progress);
  const Status status = runner(global, output);
  if (!status) {
    const ExitCode code = exit_code_for(status.error());
    // No usage hint here: the message names the field and its fix, and a kubeconfig, file or
    // credential plugin at fault is not cured by the command's --help.
    err << "error: " << status.error().message() << "\n";
    return static_cast<int>(code);
  }
  return static_cast<int>(ExitCode::Ok);
}

}  // namespace fed::plugin

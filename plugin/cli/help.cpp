#include "plugin/cli/help.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "plugin/cli/commands.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

constexpr std::string_view kIntro =
    "kubectl fed is the command line of kubectl-fed, which federates Kubernetes clusters. It "
    "reads the same kubeconfig as kubectl and accepts kubectl's standard flags.";

constexpr std::size_t kWrapAt = 100;

// Re-flows a paragraph to lines of at most kWrapAt columns.
std::string wrap(std::string_view text) {
  std::string out;
  std::size_t column = 0;
  for (const std::string& word : util::split(text, ' ', util::EmptyParts::Skip)) {
    if (column > 0 && column + 1 + word.size() > kWrapAt) {
      out += '\n';
      column = 0;
    } else if (column > 0) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out;
}

constexpr std::string_view kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  the operation failed\n"
    "  2  bad flags, arguments or input; nothing was changed\n"
    "  3  a cluster could not be reached or timed out\n"
    "  4  authentication or authorization was refused\n"
    "  5  a named object or context does not exist\n"
    "  6  a concurrent change won; run the command again\n";

// Lines "  -n, --namespace string   help", aligned on the help column.
std::string flag_lines(const std::vector<FlagInfo>& flags) {
  std::vector<std::string> left;
  std::size_t width = 0;
  for (const FlagInfo& f : flags) {
    std::string l = f.short_name.empty() ? "      " : "  " + f.short_name + ", ";
    l += f.long_name;
    if (!f.value_name.empty()) l += " " + f.value_name;
    width = std::max(width, l.size());
    left.push_back(std::move(l));
  }
  std::string out;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    out += left[i] + std::string(width - left[i].size() + 3, ' ') + flags[i].help + "\n";
  }
  return out;
}

std::vector<FlagInfo> global_flag_infos() {
  std::vector<FlagInfo> out;
  for (const GlobalFlag& g : global_flags()) {
    out.push_back({std::string(g.short_name), std::string(g.long_name), std::string(g.value_name),
                   std::string(g.help)});
  }
  out.push_back({"-h", "--help", "", "Help for kubectl fed or for a command"});
  return out;
}

std::string value_name_of(const CLI::Option& opt) {
  if (opt.get_items_expected_max() == 0) return "";
  std::string type = opt.get_type_name();
  if (type == "TEXT") return "string";
  if (type == "INT" || type == "UINT") return "int";
  if (type == "FLOAT") return "float";
  return type.empty() ? "string" : CLI::detail::to_lower(type);
}

}  // namespace

std::vector<FlagInfo> command_flags(const Command& command) {
  CLI::App app;
  app.set_help_flag();
  command.wire(app);
  std::vector<FlagInfo> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional()) continue;
    FlagInfo f;
    if (!opt->get_snames().empty()) f.short_name = "-" + opt->get_snames().front();
    if (!opt->get_lnames().empty()) f.long_name = "--" + opt->get_lnames().front();
    f.value_name = value_name_of(*opt);
    f.help = opt->get_description();
    if (!opt->get_default_str().empty() && !f.value_name.empty()) {
      f.help += " (default " + opt->get_default_str() + ")";
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string top_level_help() {
  std::string out = wrap(kIntro) + "\n\nUsage:\n  kubectl fed <command> [flags]\n\n";
  out += "Commands:\n";
  std::size_t width = 0;
  for (const Command* c : commands()) width = std::max(width, c->name.size());
  for (const Command* c : commands()) {
    out += "  " + std::string(c->name) + std::string(width - c->name.size() + 3, ' ') +
           std::string(c->summary) + "\n";
  }
  out += "\nGlobal flags (accepted before or after the command):\n";
  out += flag_lines(global_flag_infos());
  out += "\n" + std::string(kExitCodes);
  out += "\nUse \"kubectl fed <command> --help\" for more about a command.\n";
  return out;
}

std::string command_help(const Command& command) {
  std::string out =
      wrap(command.description) + "\n\nUsage:\n  kubectl fed " + std::string(command.usage) + "\n";
  if (!command.examples.empty()) out += "\nExamples:\n" + std::string(command.examples);
  std::vector<FlagInfo> flags = command_flags(command);
  if (!flags.empty()) out += "\nFlags:\n" + flag_lines(flags);
  out += "\nGlobal flags:\n" + flag_lines(global_flag_infos());
  return out;
}

}  // namespace fed::plugin

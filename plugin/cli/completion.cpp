#include "plugin/cli/completion.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "plugin/cli/commands.hpp"
#include "plugin/cli/help.hpp"
#include "shared/util/edit_distance.hpp"
#include "shared/util/strings.hpp"

namespace fed::plugin {
namespace {

// Shell commands that list contexts and namespaces; kubectl is there when `kubectl fed` is.
constexpr std::string_view kListContexts = "kubectl config get-contexts -o name 2>/dev/null";
constexpr std::string_view kNamespacesArgs =
    "get namespaces -o name --request-timeout=5s 2>/dev/null";

// Every spelling of the global flags, space-separated, plus --help.
std::string global_words() {
  std::string words;
  for (const GlobalFlag& g : global_flags()) {
    words += std::string(g.long_name) + " ";
    if (!g.short_name.empty()) words += std::string(g.short_name) + " ";
  }
  return words + "--help -h";
}

// "a|b|c" for a bash case pattern of the global flags that take a value.
std::string global_value_pattern() {
  std::vector<std::string> names;
  for (const GlobalFlag& g : global_flags()) {
    if (!g.short_name.empty()) names.emplace_back(g.short_name);
    names.emplace_back(g.long_name);
  }
  return util::join(names, "|");
}

// Makes `s` safe inside a single-quoted zsh word and an _arguments [description].
std::string zsh_escape(std::string_view s) {
  std::string out = util::replace_all(s, "'", "'\\''");
  out = util::replace_all(out, "[", "\\[");
  return util::replace_all(out, "]", "\\]");
}

std::string join_views(const std::vector<std::string_view>& v) {
  std::vector<std::string> s(v.begin(), v.end());
  return util::join(s, " ");
}

Runner wire_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  app.add_option("shell", *shell, "bash or zsh");
  return [shell](const GlobalOptions& global, Output& out) -> Status {
    CompletionOptions options;
    if (*shell == "bash") {
      options.shell = Shell::Bash;
    } else if (*shell == "zsh") {
      options.shell = Shell::Zsh;
    } else if (shell->empty()) {
      return fail(ErrorCode::Invalid, "completion needs a shell: bash or zsh");
    } else {
      std::string message = "unsupported shell \"" + *shell + "\": use bash or zsh";
      if (auto m = util::closest_match(*shell, {"bash", "zsh"})) {
        message += "; did you mean \"" + *m + "\"?";
      }
      return fail(ErrorCode::Invalid, message);
    }
    return run_completion(global, options, out);
  };
}

}  // namespace

const Command kCompletionCommand{
    .name = "completion",
    .summary = "Print a shell completion script (bash or zsh)",
    .description =
        "Print a completion script for bash or zsh. It completes the commands, their flags and "
        "arguments, the global flags, -o formats, kubeconfig files, and (through kubectl) "
        "contexts and namespaces. The script completes the kubectl-fed command; kubectl itself "
        "completes plugins only through a kubectl_complete-fed helper.",
    .usage = "completion bash|zsh",
    .examples =
        "  # Load completion in the current bash session\n"
        "  source <(kubectl-fed completion bash)\n"
        "\n"
        "  # Install it for every bash session\n"
        "  kubectl-fed completion bash > ~/.local/share/bash-completion/completions/"
        "kubectl-fed\n"
        "\n"
        "  # zsh: install it as a completion function on $fpath\n"
        "  kubectl-fed completion zsh > \"${fpath[1]}/_kubectl-fed\"\n",
    .arg_values = {"bash", "zsh"},
    .wire = wire_completion,
};

Status run_completion(const GlobalOptions&, const CompletionOptions& options, Output& out) {
  out.out() << (options.shell == Shell::Bash ? bash_completion_script() : zsh_completion_script())
            << std::flush;
  return ok();
}

std::string bash_completion_script() {
  std::string s =
      "# bash completion for kubectl-fed\n"
      "#\n"
      "# Load it in the current shell:   source <(kubectl-fed completion bash)\n"
      "# or for every shell:              kubectl-fed completion bash > \\\n"
      "#   ~/.local/share/bash-completion/completions/kubectl-fed\n"
      "\n"
      "_kubectl_fed() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\"\n"
      "  (( COMP_CWORD > 0 )) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
      "  # bash splits \"--output=json\" at '='\n"
      "  if [[ \"$cur\" == \"=\" ]]; then\n"
      "    cur=\"\"\n"
      "  elif [[ \"$prev\" == \"=\" ]] && (( COMP_CWORD >= 2 )); then\n"
      "    prev=\"${COMP_WORDS[COMP_CWORD-2]}\"\n"
      "  fi\n"
      "\n"
      "  # Find the command, skipping global flags and their values.\n"
      "  local i word cmd=\"\" kubectl_args=()\n"
      "  for (( i = 1; i < COMP_CWORD; i++ )); do\n"
      "    word=\"${COMP_WORDS[i]}\"\n"
      "    case \"$word\" in\n"
      "      --context=*|--kubeconfig=*)\n"
      "        kubectl_args+=(\"$word\") ;;\n"
      "      --context|--kubeconfig)\n"
      "        # --context=c1 comes as three words (bash breaks at '='): skip the '='.\n"
      "        [[ \"${COMP_WORDS[i+1]}\" == \"=\" ]] && (( i++ ))\n"
      "        kubectl_args+=(\"$word\" \"${COMP_WORDS[i+1]}\"); (( i++ )) ;;\n"
      "      " +
      global_value_pattern() +
      ")\n"
      "        [[ \"${COMP_WORDS[i+1]}\" == \"=\" ]] && (( i++ ))\n"
      "        (( i++ )) ;;\n"
      "      -*) ;;\n"
      "      *) cmd=\"$word\"; break ;;\n"
      "    esac\n"
      "  done\n"
      "\n"
      "  case \"$prev\" in\n"
      "    -o|--output)\n"
      "      COMPREPLY=($(compgen -W \"table yaml json\" -- \"$cur\")); return 0 ;;\n"
      "    --kubeconfig)\n"
      "      compopt -o filenames 2>/dev/null\n"
      "      COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n"
      "    --context)\n"
      "      COMPREPLY=($(compgen -W \"$(" +
      std::string(kListContexts) +
      ")\" -- \"$cur\"))\n"
      "      return 0 ;;\n"
      "    -n|--namespace)\n"
      "      local namespaces\n"
      "      namespaces=\"$(kubectl \"${kubectl_args[@]}\" " +
      std::string(kNamespacesArgs) +
      ")\"\n"
      "      COMPREPLY=($(compgen -W \"${namespaces//namespace\\//}\" -- \"$cur\")); return 0 ;;\n"
      "    --request-timeout|-v|--v)\n"
      "      COMPREPLY=(); return 0 ;;\n"
      "  esac\n"
      "\n"
      "  local global_flags=\"" +
      global_words() +
      "\"\n"
      "  if [[ -z \"$cmd\" ]]; then\n"
      "    if [[ \"$cur\" == -* ]]; then\n"
      "      COMPREPLY=($(compgen -W \"$global_flags\" -- \"$cur\"))\n"
      "    else\n"
      "      COMPREPLY=($(compgen -W \"" +
      util::join(command_names(), " ") +
      "\" -- \"$cur\"))\n"
      "    fi\n"
      "    return 0\n"
      "  fi\n"
      "\n"
      "  local flags=\"\" args=\"\"\n"
      "  case \"$cmd\" in\n";
  for (const Command* c : commands()) {
    std::vector<std::string> names;
    std::vector<std::string> value_flags;
    for (const FlagInfo& f : command_flags(*c)) {
      names.push_back(f.long_name);
      if (!f.short_name.empty()) names.push_back(f.short_name);
      if (!f.value_name.empty()) {
        value_flags.push_back(f.long_name);
        if (!f.short_name.empty()) value_flags.push_back(f.short_name);
      }
    }
    s += "    " + std::string(c->name) + ")\n";
    if (!value_flags.empty()) {
      s += "      case \"$prev\" in " + util::join(value_flags, "|") +
           ") COMPREPLY=(); return 0 ;; esac\n";
    }
    s += "      flags=\"" + util::join(names, " ") + "\"; args=\"" + join_views(c->arg_values) +
         "\" ;;\n";
  }
  s += "  esac\n"
       "  if [[ \"$cur\" == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$flags $global_flags\" -- \"$cur\"))\n"
       "  else\n"
       "    COMPREPLY=($(compgen -W \"$args\" -- \"$cur\"))\n"
       "  fi\n"
       "  return 0\n"
       "}\n"
       "\n"
       "complete -F _kubectl_fed kubectl-fed\n";
  return s;
}

std::string zsh_completion_script() {
  std::string s =
      "#compdef kubectl-fed\n"
      "# zsh completion for kubectl-fed\n"
      "#\n"
      "# Load it in the current shell (after compinit):   source <(kubectl-fed completion zsh)\n"
      "# or install it on $fpath:   kubectl-fed completion zsh > \"${fpath[1]}/_kubectl-fed\"\n"
      "\n"
      "_kubectl_fed_contexts() {\n"
      "  local -a contexts\n"
      "  contexts=(${(f)\"$(" +
      std::string(kListContexts) +
      ")\"})\n"
      "  _describe -t contexts 'context' contexts\n"
      "}\n"
      "\n"
      "_kubectl_fed_namespaces() {\n"
      "  local -a namespaces\n"
      "  namespaces=(${${(f)\"$(kubectl " +
      std::string(kNamespacesArgs) +
      ")\"}#namespace/})\n"
      "  _describe -t namespaces 'namespace' namespaces\n"
      "}\n"
      "\n"
      "_kubectl_fed() {\n"
      "  local -a global_flags\n"
      "  global_flags=(\n";
  for (const GlobalFlag& g : global_flags()) {
    std::string action = ": ";
    if (g.long_name == "--context") action = ":context:_kubectl_fed_contexts";
    if (g.long_name == "--kubeconfig") action = ":file:_files";
    if (g.long_name == "--namespace") action = ":namespace:_kubectl_fed_namespaces";
    if (g.long_name == "--output") action = ":format:(table yaml json)";
    if (g.long_name == "--request-timeout") action = ":duration: ";
    if (g.long_name == "--v") action = ":level: ";
    const std::string desc = "[" + zsh_escape(g.help) + "]" + action;
    if (g.short_name.empty()) {
      s += "    '" + std::string(g.long_name) + "=" + desc + "'\n";
    } else {
      s += "    '(" + std::string(g.short_name) + " " + std::string(g.long_name) + ")'{" +
           std::string(g.short_name) + "+," + std::string(g.long_name) + "=}'" + desc + "'\n";
    }
  }
  s += "    '(- *)'{-h,--help}'[Show help]'\n"
       "  )\n"
       "  local curcontext=\"$curcontext\" state line\n"
       "  typeset -A opt_args\n"
       "  _arguments -C $global_flags '1:command:->command' '*::argument:->args'\n"
       "  case $state in\n"
       "    command)\n"
       "      local -a commands\n"
       "      commands=(\n";
  for (const Command* c : commands()) {
    s += "        '" + std::string(c->name) + ":" + zsh_escape(c->summary) + "'\n";
  }
  s += "      )\n"
       "      _describe -t commands 'kubectl fed command' commands\n"
       "      ;;\n"
       "    args)\n"
       "      case $words[1] in\n";
  for (const Command* c : commands()) {
    s += "        " + std::string(c->name) + ")\n          _arguments $global_flags";
    for (const FlagInfo& f : command_flags(*c)) {
      const std::string desc = "[" + zsh_escape(f.help) + "]" + (f.value_name.empty() ? "" : ": ");
      s += " \\\n            '" + f.long_name + (f.value_name.empty() ? "" : "=") + desc + "'";
    }
    if (!c->arg_values.empty()) {
      s += " \\\n            '1:argument:(" + join_views(c->arg_values) + ")'";
    }
    s += " ;;\n";
  }
  s += "      esac\n"
       "      ;;\n"
       "  esac\n"
       "}\n"
       "\n"
       "if [[ \"$funcstack[1]\" == \"_kubectl-fed\" ]]; then\n"
       "  _kubectl_fed \"$@\"\n"
       "else\n"
       "  compdef _kubectl_fed kubectl-fed\n"
       "fi\n";
  return s;
}

}  // namespace fed::plugin

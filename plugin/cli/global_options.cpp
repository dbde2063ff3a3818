#include "plugin/cli/global_options.hpp"

#include <charconv>
#include <optional>

#include "shared/util/duration.hpp"
#include "shared/util/edit_distance.hpp"

namespace fed::plugin {
namespace {

// Which GlobalOptions field a flag fills.
enum class Field { Kubeconfig, Context, Namespace, Output, Verbosity, RequestTimeout };

struct Spec {
  GlobalFlag flag;
  Field field;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> kSpecs = {
      {{"", "--context", "string", "The kubeconfig context to use"}, Field::Context},
      {{"", "--kubeconfig", "string",
        "Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)"},
       Field::Kubeconfig},
      {{"-n", "--namespace", "string", "Namespace to act in (default: the context's namespace)"},
       Field::Namespace},
      {{"-o", "--output", "string", "Output format: table, yaml or json (default \"table\")"},
       Field::Output},
      {{"", "--request-timeout", "duration",
        "Time limit for each API request, e.g. 30s, 2m or 1h; 0 means no limit (default 0)"},
       Field::RequestTimeout},
      {{"-v", "--v", "int",
        "Log verbosity: 0 warnings, 1-3 info, 4-5 debug, 6+ trace (kubectl's levels)"},
       Field::Verbosity},
  };
  return kSpecs;
}

// The spec whose short or long name is `name`.
const Spec* find_spec(std::string_view name) {
  for (const Spec& s : specs()) {
    if (name == s.flag.long_name || (!s.flag.short_name.empty() && name == s.flag.short_name)) {
      return &s;
    }
  }
  return nullptr;
}

Unexpected usage(std::string message) {
  return fail(ErrorCode::Invalid, std::move(message));
}

std::string flag_label(const Spec& s) {
  return s.flag.short_name.empty()
             ? std::string(s.flag.long_name)
             : std::string(s.flag.short_name) + "/" + std::string(s.flag.long_name);
}

Status apply(const Spec& spec, std::string_view value, GlobalOptions& g) {
  switch (spec.field) {
    case Field::Kubeconfig:
      g.kubeconfig = value;
      return ok();
    case Field::Context:
      g.context = value;
      g.contexts.emplace_back(value);
      return ok();
    case Field::Namespace:
      g.namespace_name = value;
      return ok();
    case Field::Output: {
      FED_ASSIGN_OR_RETURN(g.output, parse_output_format(value));
      return ok();
    }
    case Field::Verbosity: {
      int level = -1;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), level);
      if (ec != std::errc() || end != value.data() + value.size() || level < 0) {
        return usage("invalid value \"" + std::string(value) +
                     "\" for -v/--v: use a level from 0 (quiet) to 9 (most detail), e.g. -v=4");
      }
      g.verbosity = level;
      return ok();
    }
    case Field::RequestTimeout: {
      FED_ASSIGN_OR_RETURN(g.request_timeout, parse_request_timeout(value));
      return ok();
    }
  }
  return ok();
}

}  // namespace

const std::vector<GlobalFlag>& global_flags() {
  static const std::vector<GlobalFlag> kFlags = [] {
    std::vector<GlobalFlag> flags;
    for (const Spec& s : specs()) flags.push_back(s.flag);
    return flags;
  }();
  return kFlags;
}

std::vector<std::string> global_flag_names() {
  std::vector<std::string> names;
  for (const Spec& s : specs()) {
    names.emplace_back(s.flag.long_name);
    if (!s.flag.short_name.empty()) names.emplace_back(s.flag.short_name);
  }
  names.emplace_back("--help");
  names.emplace_back("-h");
  return names;
}

Result<OutputFormat> parse_output_format(std::string_view s) {
  if (s == "table") return OutputFormat::Table;
  if (s == "yaml") return OutputFormat::Yaml;
  if (s == "json") return OutputFormat::Json;
  std::string message =
      "invalid value \"" + std::string(s) + "\" for -o/--output: use one of table, yaml, json";
  if (auto match = util::closest_match(s, {"table", "yaml", "json"})) {
    message += "; did you mean \"" + *match + "\"?";
  }
  return usage(std::move(message));
}

std::string_view to_string(OutputFormat f) {
  switch (f) {
    case OutputFormat::Table:
      return "table";
    case OutputFormat::Yaml:
      return "yaml";
    case OutputFormat::Json:
      return "json";
  }
  return "table";
}

Result<std::chrono::milliseconds> parse_request_timeout(std::string_view s) {
  std::int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), seconds);
  if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) {
    if (seconds < 0) return usage("--request-timeout: must not be negative");
    return std::chrono::milliseconds(seconds * 1000);
  }
  auto d = util::parse_duration(s);
  if (!d) return std::move(d).error().with_context("--request-timeout");
  if (d->count() < 0) return usage("--request-timeout: must not be negative");
  // Timeouts count whole milliseconds, and 0 means "no limit": a shorter non-zero value must
  // not silently become that.
  if (d->count() > 0 && *d < std::chrono::milliseconds(1)) {
    return usage("--request-timeout: \"" + std::string(s) +
                 "\" is below 1ms; give at least 1ms, or 0 for no limit");
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

Result<ScannedArgs> scan_global_flags(const std::vector<std::string>& args) {
  ScannedArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.rest.insert(out.rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    const Spec* spec = nullptr;
    std::optional<std::string> value;
    if (arg.rfind("--", 0) == 0) {
      // --name value | --name=value
      const std::size_t eq = arg.find('=');
      spec = find_spec(std::string_view(arg).substr(0, eq));
      if (spec != nullptr && eq != std::string::npos) value = arg.substr(eq + 1);
    } else if (arg.size() >= 2 && arg[0] == '-') {
      // -n value | -n=value | -nvalue
      spec = find_spec(std::string_view(arg).substr(0, 2));
      if (spec != nullptr && arg.size() > 2) {
        value = arg[2] == '=' ? arg.substr(3) : arg.substr(2);
      }
    }
    if (spec == nullptr) {
      out.rest.push_back(arg);
      continue;
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        return usage("flag " + flag_label(*spec) + " needs a value (" +
                     std::string(spec->flag.value_name) + ")");
      }
      value = args[++i];
    }
    FED_TRY(apply(*spec, *value, out.global));
  }
  return out;
}

int log_verbosity(int kubectl_level) {
  if (kubectl_level <= 0) return -1;
  if (kubectl_level <= 3) return 0;
  if (kubectl_level <= 5) return 1;
  return 2;
}

}  // namespace fed::plugin

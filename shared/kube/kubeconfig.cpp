#include "shared/kube/kubeconfig.hpp"

#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <utility>

#include "shared/util/base64.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/strings.hpp"

namespace fed::kube {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExecV1Beta1 = "client.authentication.k8s.io/v1beta1";

// Parses one kubeconfig file; every error names the file, the line and the fix.
class FileParser final {
 public:
  explicit FileParser(const fs::path& origin) : origin_(origin) {
    std::error_code ec;
    const fs::path abs = fs::absolute(origin, ec);
    dir_ = (ec ? origin : abs).parent_path();
  }

  Result<Kubeconfig> parse(const YAML::Node& root) {
    Kubeconfig out;
    out.files.push_back(origin_);
    if (!root.IsDefined() || root.IsNull()) return out;  // an empty file is an empty config
    if (!root.IsMap()) {
      return invalid(root,
                     "not a kubeconfig (the top level must be a mapping with clusters, "
                     "users and contexts); point --kubeconfig/KUBECONFIG at a kubeconfig");
    }
    FED_TRY(parse_list(
        root, "clusters", "cluster", out.clusters,
        [this](const YAML::Node& n, const std::string& where) { return parse_cluster(n, where); }));
    FED_TRY(parse_list(
        root, "users", "user", out.users,
        [this](const YAML::Node& n, const std::string& where) { return parse_user(n, where); }));
    FED_TRY(parse_list(
        root, "contexts", "context", out.contexts,
        [this](const YAML::Node& n, const std::string& where) { return parse_context(n, where); }));
    FED_ASSIGN_OR_RETURN(out.current_context, str(root, "current-context", "kubeconfig"));
    return out;
  }

 private:
  Unexpected invalid(const YAML::Node& at, std::string_view what) const {
    const YAML::Mark mark = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
    if (mark.is_null())
      return fail(ErrorCode::Invalid, fmt::format("{}: {}", origin_.string(), what));
    return fail(ErrorCode::Invalid,
                fmt::format("{}:{}: {}", origin_.string(), mark.line + 1, what));
  }

  // A string field; absent or null reads as "".
  Result<std::string> str(const YAML::Node& map, const char* key, const std::string& where) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return std::string();
    if (!n.IsScalar()) {
      return invalid(n, fmt::format("{}.{} must be a string; fix the kubeconfig", where, key));
    }
    return n.Scalar();
  }

  Result<bool> boolean(const YAML::Node& map, const char* key, const std::string& where) const {
    const YAML::Node n = map[key];
    if (!n.IsDefined() || n.IsNull()) return false;
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) {
      return invalid(n, fmt::format("{}.{} must be true or false; fix the kubeconfig", where, key));
    }
    return v;
  }

  // A base64 field (*-data), returned decoded.
  Result<std::string> data(const YAML::Node& map, const char* key, const std::string& where) const {
    FED_ASSIGN_OR_RETURN(std::string text, str(map, key, where));
    auto decoded = util::base64_decode(text);
    if (!decoded) {
      return invalid(map[key], fmt::format("{}.{} is not valid base64 ({}); store the output of "
                                           "`base64 -w0 FILE` there",
                                           where, key, decoded.error().message()));
    }
    return std::move(decoded).value();
  }

  // A file path field, made absolute against the directory of this file (as kubectl does).
  Result<std::string> path(const YAML::Node& map, const char* key, const std::string& where) const {
    FED_ASSIGN_OR_RETURN(std::string p, str(map, key, where));
    return resolve(p);
  }

  std::string resolve(const std::string& p) const {
    if (p.empty() || fs::path(p).is_absolute()) return p;
    return (dir_ / p).lexically_normal().string();
  }

  template <typename T, typename ParseItem>
  Status parse_list(const YAML::Node& root, const char* list_key, const char* item_key,
                    std::map<std::string, T>& out, ParseItem parse_item) const {
    const YAML::Node list = root[list_key];
    if (!list.IsDefined() || list.IsNull()) return ok();
    if (!list.IsSequence()) {
      return invalid(list, fmt::format("{} must be a list of {{name: ..., {}: {{...}}}} entries; "
                                       "fix the kubeconfig",
                                       list_key, item_key));
    }
    for (const YAML::Node& entry : list) {
      if (!entry.IsMap()) {
        return invalid(entry, fmt::format("each entry of {} must be a mapping with name and {}; "
                                          "fix the kubeconfig",
                                          list_key, item_key));
      }
      FED_ASSIGN_OR_RETURN(std::string name, str(entry, "name", list_key));
      if (name.empty()) {
        return invalid(entry, fmt::format("an entry of {} has no name; give it one", list_key));
      }
      const std::string where = fmt::format("{} \"{}\"", item_key, name);
      const YAML::Node body = entry[item_key];
      if (body.IsDefined() && !body.IsNull() && !body.IsMap()) {
        return invalid(
            body, fmt::format("{}: {} must be a mapping; fix the kubeconfig", where, item_key));
      }
      FED_ASSIGN_OR_RETURN(
          T item, parse_item(body.IsMap() ? body : YAML::Node(YAML::NodeType::Map), where));
      item.origin = origin_;
      if (!out.emplace(name, std::move(item)).second) {
        return invalid(entry, fmt::format("{} is defined twice in this file; names must be unique "
                                          "within a file, remove or rename one",
                                          where));
      }
    }
    return ok();
  }

  Result<Cluster> parse_cluster(const YAML::Node& n, const std::string& where) const {
    Cluster c;
    FED_ASSIGN_OR_RETURN(c.server, str(n, "server", where));
    FED_ASSIGN_OR_RETURN(c.certificate_authority, path(n, "certificate-authority", where));
    FED_ASSIGN_OR_RETURN(c.certificate_authority_data,
                         data(n, "certificate-authority-data", where));
    FED_ASSIGN_OR_RETURN(c.insecure_skip_tls_verify, boolean(n, "insecure-skip-tls-verify", where));
    FED_ASSIGN_OR_RETURN(c.tls_server_name, str(n, "tls-server-name", where));
    FED_ASSIGN_OR_RETURN(c.proxy_url, str(n, "proxy-url", where));
    return c;
  }

  Result<User> parse_user(const YAML::Node& n, const std::string& where) const {
    User u;
    FED_ASSIGN_OR_RETURN(u.client_certificate, path(n, "client-certificate", where));
    FED_ASSIGN_OR_RETURN(u.client_certificate_data, data(n, "client-certificate-data", where));
    FED_ASSIGN_OR_RETURN(u.client_key, path(n, "client-key", where));
    FED_ASSIGN_OR_RETURN(u.client_key_data, data(n, "client-key-data", where));
    FED_ASSIGN_OR_RETURN(u.token, str(n, "token", where));
    FED_ASSIGN_OR_RETURN(u.token_file, path(n, "tokenFile", where));
    FED_ASSIGN_OR_RETURN(u.username, str(n, "username", where));
    FED_ASSIGN_OR_RETURN(u.password, str(n, "password", where));
    FED_ASSIGN_OR_RETURN(u.impersonate, str(n, "as", where));
    const YAML::Node provider = n["auth-provider"];
    if (provider.IsDefined() && !provider.IsNull()) {
      u.auth_provider = "unnamed";
      if (provider.IsMap()) {
        FED_ASSIGN_OR_RETURN(std::string name, str(provider, "name", where + ".auth-provider"));
        if (!name.empty()) u.auth_provider = name;
      }
    }
    const YAML::Node exec = n["exec"];
    if (exec.IsDefined() && !exec.IsNull()) {
      FED_ASSIGN_OR_RETURN(u.exec, parse_exec(exec, where + ".exec"));
    }
    return u;
  }

  Result<ExecConfig> parse_exec(const YAML::Node& n, const std::string& where) const {
    if (!n.IsMap()) return invalid(n, where + " must be a mapping; fix the kubeconfig");
    ExecConfig e;
    FED_ASSIGN_OR_RETURN(e.command, str(n, "command", where));
    // Like kubectl: a command with a '/' is a path relative to this file, else a PATH lookup.
    if (e.command.find('/') != std::string::npos) e.command = resolve(e.command);
    FED_ASSIGN_OR_RETURN(e.api_version, str(n, "apiVersion", where));
    FED_ASSIGN_OR_RETURN(e.install_hint, str(n, "installHint", where));
    FED_ASSIGN_OR_RETURN(e.provide_cluster_info, boolean(n, "provideClusterInfo", where));
    const YAML::Node args = n["args"];
    if (args.IsDefined() && !args.IsNull()) {
      if (!args.IsSequence()) return invalid(args, where + ".args must be a list of strings");
      for (const YAML::Node& a : args) {
        if (!a.IsScalar()) return invalid(a, where + ".args must be a list of strings");
        e.args.push_back(a.Scalar());
      }
    }
    const YAML::Node env = n["env"];
    if (env.IsDefined() && !env.IsNull()) {
      if (!env.IsSequence()) {
        return invalid(env, where + ".env must be a list of {name: ..., value: ...}");
      }
      for (const YAML::Node& v : env) {
        if (!v.IsMap()) return invalid(v, where + ".env must be a list of {name: ..., value: ...}");
        ExecEnvVar var;
        FED_ASSIGN_OR_RETURN(var.name, str(v, "name", where + ".env[]"));
        FED_ASSIGN_OR_RETURN(var.value, str(v, "value", where + ".env[]"));
        if (var.name.empty()) return invalid(v, where + ".env has an entry without a name");
        e.env.push_back(std::move(var));
      }
    }
    FED_ASSIGN_OR_RETURN(std::string mode, str(n, "interactiveMode", where));
    if (mode == "Never") {
      e.interactive_mode = InteractiveMode::Never;
    } else if (mode == "IfAvailable") {
      e.interactive_mode = InteractiveMode::IfAvailable;
    } else if (mode == "Always") {
      e.interactive_mode = InteractiveMode::Always;
    } else if (!mode.empty()) {
      return invalid(n["interactiveMode"],
                     fmt::format("{}.interactiveMode \"{}\" is not one of Never, IfAvailable, "
                                 "Always; fix the kubeconfig",
                                 where, mode));
    } else if (e.api_version == kExecV1Beta1) {
      e.interactive_mode = InteractiveMode::IfAvailable;  // kubectl's v1beta1 default
    }
    return e;
  }

  Result<Context> parse_context(const YAML::Node& n, const std::string& where) const {
    Context c;
    FED_ASSIGN_OR_RETURN(c.cluster, str(n, "cluster", where));
    FED_ASSIGN_OR_RETURN(c.user, str(n, "user", where));
    FED_ASSIGN_OR_RETURN(c.namespace_name, str(n, "namespace", where));
    return c;
  }

  fs::path origin_;
  fs::path dir_;
};

std::string home_dir() {
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return home;
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (::getpwuid_r(::getuid(), &pw, buf, sizeof buf, &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return {};
}

}  // namespace

std::vector<std::string> Kubeconfig::context_names() const {
  std::vector<std::string> names;
  names.reserve(contexts.size());
  for (const auto& [name, ctx] : contexts) names.push_back(name);
  return names;
}

std::vector<KubeconfigSource> kubeconfig_sources(const LoadOptions& options) {
  if (!options.kubeconfig_path.empty()) {
    return {{options.kubeconfig_path, MissingFile::Error}};
  }
  std::vector<KubeconfigSource> out;
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    // Like kubectl: the list replaces the default even if every entry is empty or missing.
    for (std::string& entry : util::split(env, ':', util::EmptyParts::Skip)) {
      const bool seen = std::any_of(out.begin(), out.end(),
                                    [&](const KubeconfigSource& s) { return s.path == entry; });
      if (!seen) out.push_back({std::move(entry), MissingFile::Skip});
    }
    return out;
  }
  if (const std::string home = home_dir(); !home.empty()) {
    out.push_back({fs::path(home) / ".kube" / "config", MissingFile::Skip});
  }
  return out;
}

Result<Kubeconfig> parse_kubeconfig(std::string_view yaml, const fs::path& origin) {
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    return FileParser(origin).parse(root);
  } catch (const YAML::Exception& e) {
    const std::string where = e.mark.is_null() ? origin.string()
                                               : fmt::format("{}:{}:{}", origin.string(),
                                                             e.mark.line + 1, e.mark.column + 1);
    return fail(
        ErrorCode::Invalid,
        fmt::format("{}: malformed YAML: {}; fix the syntax (check indentation and quoting)", where,
                    e.msg));
  }
}

void merge_kubeconfig(Kubeconfig& into, Kubeconfig later) {
  for (auto& [name, c] : later.clusters) into.clusters.try_emplace(name, std::move(c));
  for (auto& [name, u] : later.users) into.users.try_emplace(name, std::move(u));
  for (auto& [name, c] : later.contexts) into.contexts.try_emplace(name, std::move(c));
  if (into.current_context.empty()) into.current_context = std::move(later.current_context);
  for (auto& f : later.files) into.files.push_back(std::move(f));
}

Result<Kubeconfig> load_kubeconfig(const std::vector<KubeconfigSource>& sources) {
  Kubeconfig merged;
  for (const KubeconfigSource& source : sources) {
    auto text = util::read_file(source.path);
    if (!text) {
      const Error& err = text.error();
      if (err.code() == ErrorCode::NotFound) {
        if (source.missing == MissingFile::Skip) continue;
        // The file is input, as an -f file is: exit code 2, not a missing object's 5.
        return fail(ErrorCode::Invalid,
                    fmt::format("kubeconfig {} does not exist; check the --kubeconfig path",
                                source.path.string()));
      }
      return fail(ErrorCode::Invalid,
                  fmt::format("cannot read kubeconfig {}; fix the path or the file's "
                              "permissions",
                              err.message()));
    }
    FED_ASSIGN_OR_RETURN(Kubeconfig one, parse_kubeconfig(*text, source.path));
    merge_kubeconfig(merged, std::move(one));
  }
  return merged;
}

Result<Kubeconfig> load_kubeconfig(const LoadOptions& options) {
  return load_kubeconfig(kubeconfig_sources(options));
}

}  // namespace fed::kube

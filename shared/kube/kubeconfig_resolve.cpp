#include "shared/kube/kubeconfig_resolve.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <utility>

#include "shared/kube/exec_credential.hpp"
#include "shared/kube/token_credentials.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/strings.hpp"

namespace fed::kube {
namespace {

namespace fs = std::filesystem;

template <typename T>
std::string names_of(const std::map<std::string, T>& items) {
  if (items.empty()) return "none";
  std::vector<std::string> names;
  for (const auto& [name, item] : items) names.push_back(name);
  return util::join(names, ", ");
}

std::string files_of(const Kubeconfig& config) {
  if (config.files.empty()) return "no file";
  std::vector<std::string> names;
  for (const fs::path& f : config.files) names.push_back(f.string());
  return util::join(names, ", ");
}

// PEM bytes from an inline *-data field, else from a file; "" when neither is set.
// `what` is the setting without its -data suffix, `owner` e.g. `cluster "prod" in FILE`.
Result<std::string> pem_from(const std::string& data, const std::string& file,
                             std::string_view what, std::string_view owner) {
  std::string pem = data;
  if (pem.empty() && !file.empty()) {
    auto read = util::read_file(file);
    if (!read) {
      // A file the kubeconfig names is input: missing or unreadable, it is bad input (exit 2).
      return fail(ErrorCode::Invalid, fmt::format("cannot read the {} file of {} ({}); fix the "
                                                  "path or the file's permissions",
                                                  what, owner, read.error().message()));
    }
    pem = std::move(read).value();
  }
  if (!pem.empty() && pem.find("-----BEGIN ") == std::string::npos) {
    const std::string source =
        data.empty() ? fmt::format("the file {}", file) : fmt::format("{}-data", what);
    return fail(ErrorCode::Invalid,
                fmt::format("the {} of {} is not PEM ({} has no -----BEGIN line); supply the "
                            "PEM text (for *-data fields: base64 of the PEM file)",
                            what, owner, source));
  }
  return pem;
}

// kubectl's server defaulting: no trailing slash; no scheme means https if TLS is configured.
Result<std::string> normalize_server(std::string server, bool tls, std::string_view owner) {
  while (!server.empty() && server.back() == '/') server.pop_back();
  const auto scheme_end = server.find("://");
  if (scheme_end == std::string::npos) return (tls ? "https://" : "http://") + server;
  const std::string scheme = util::to_lower(server.substr(0, scheme_end));
  if (scheme != "https" && scheme != "http") {
    return fail(ErrorCode::Invalid, fmt::format("the server \"{}\" of {} is not an http(s) URL; "
                                                "set server: https://HOST:PORT",
                                                server, owner));
  }
  return server;
}

Status resolve_cluster(const std::string& name, const Cluster& cluster, RestConfig& out) {
  const std::string owner = fmt::format("cluster \"{}\" in {}", name, cluster.origin.string());
  if (cluster.server.empty()) {
    return fail(ErrorCode::Invalid,
                fmt::format("{} has no server; set server: https://HOST:PORT for it", owner));
  }
  const bool has_ca =
      !cluster.certificate_authority.empty() || !cluster.certificate_authority_data.empty();
  if (cluster.insecure_skip_tls_verify && has_ca) {
    return fail(ErrorCode::Invalid,
                fmt::format("{} sets both insecure-skip-tls-verify and a certificate authority; "
                            "remove one of them",
                            owner));
  }
  FED_ASSIGN_OR_RETURN(out.ca_pem,
                       pem_from(cluster.certificate_authority_data, cluster.certificate_authority,
                                "certificate-authority", owner));
  out.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
  out.tls_server_name = cluster.tls_server_name;
  out.proxy_url = cluster.proxy_url;
  out.cluster_name = name;
  FED_ASSIGN_OR_RETURN(
      out.server,
      normalize_server(cluster.server, has_ca || cluster.insecure_skip_tls_verify, owner));
  return ok();
}

Status resolve_user(const std::string& name, const User& user,
                    std::chrono::milliseconds exec_timeout, RestConfig& out) {
  const std::string owner = fmt::format("user \"{}\" in {}", name, user.origin.string());
  const auto invalid = [&](std::string_view what) {
    return fail(ErrorCode::Invalid, fmt::format("{} {}", owner, what));
  };
  if (!user.auth_provider.empty()) {
    return invalid(
        fmt::format("uses auth-provider \"{}\", which kubectl-fed does not support "
                    "(kubectl dropped it too); switch the user to an exec plugin such "
                    "as kubelogin or gke-gcloud-auth-plugin",
                    user.auth_provider));
  }
  if (!user.impersonate.empty()) {
    return invalid(
        "sets \"as\" (impersonation), which kubectl-fed does not support; remove it "
        "or use a user with that identity's own credentials");
  }
  const bool has_token = !user.token.empty() || !user.token_file.empty();
  const bool has_basic = !user.username.empty() || !user.password.empty();
  if (has_token && has_basic) {
    return invalid(
        "has more than one authentication method (token and username/password); "
        "keep only one");
  }

  FED_ASSIGN_OR_RETURN(
      std::string cert,
      pem_from(user.client_certificate_data, user.client_certificate, "client-certificate", owner));
  FED_ASSIGN_OR_RETURN(std::string key,
                       pem_from(user.client_key_data, user.client_key, "client-key", owner));
  if (!cert.empty() && key.empty()) {
    return invalid(
        "has a client certificate but no client key; set client-key or "
        "client-key-data");
  }
  if (cert.empty() && !key.empty()) {
    return invalid(
        "has a client key but no client certificate; set client-certificate or "
        "client-certificate-data");
  }
  if (!cert.empty()) out.client_certificate = ClientCertificate{std::move(cert), std::move(key)};

  if (!user.token_file.empty()) {
    auto source = std::make_shared<TokenFileCredential>(
        user.token_file, fmt::format("{} (tokenFile {})", owner, user.token_file), user.token);
    // Fail now, not on the first request, when there is no token to fall back on.
    if (auto first = source->token(); !first) return Unexpected(std::move(first).error());
    out.credentials = std::move(source);
  } else if (!user.token.empty()) {
    out.credentials = std::make_shared<StaticTokenCredential>(user.token);
  } else if (user.exec) {
    ExecClusterInfo info{out.server, out.ca_pem, out.insecure_skip_tls_verify, out.tls_server_name,
                         out.proxy_url};
    FED_ASSIGN_OR_RETURN(std::shared_ptr<ExecCredentialSource> exec,
                         ExecCredentialSource::create(*user.exec, std::move(info), owner,
                                                      ExecOptions{exec_timeout, {}}));
    out.credentials = exec;
    // As in client-go, a static client certificate wins; the plugin then supplies the token.
    if (!out.client_certificate) out.certificate_source = std::move(exec);
  }
  if (has_token && user.exec) {
    spdlog::warn("{} has both a token and an exec plugin; using the token, like kubectl", owner);
  }
  out.username = user.username;
  out.password = user.password;
  return ok();
}

}  // namespace

Result<RestConfig> resolve(const Kubeconfig& config, const LoadOptions& options) {
  if (config.empty()) {
    return fail(ErrorCode::Invalid,
                fmt::format("the kubeconfig ({}) defines no contexts; pass --kubeconfig with a "
                            "kubeconfig or set KUBECONFIG",
                            files_of(config)));
  }
  const bool from_flag = !options.context.empty();
  const std::string& context_name = from_flag ? options.context : config.current_context;
  if (context_name.empty()) {
    return fail(ErrorCode::Invalid,
                fmt::format("no current-context is set in the kubeconfig (contexts: {}); pass "
                            "--context or run `kubectl config use-context NAME`",
                            names_of(config.contexts)));
  }
  const auto ctx = config.contexts.find(context_name);
  if (ctx == config.contexts.end()) {
    if (from_flag) {
      return fail(ErrorCode::NotFound,
                  fmt::format("context \"{}\" not found in kubeconfig (contexts: {}); pass "
                              "--context with one of those",
                              context_name, names_of(config.contexts)));
    }
    return fail(ErrorCode::NotFound,
                fmt::format("current-context \"{}\" not found in kubeconfig (contexts: {}); run "
                            "`kubectl config use-context NAME` or pass --context",
                            context_name, names_of(config.contexts)));
  }
  const Context& context = ctx->second;
  const std::string where = context.origin.string();
  if (context.cluster.empty()) {
    return fail(ErrorCode::Invalid, fmt::format("context \"{}\" in {} names no cluster; set its "
                                                "cluster",
                                                context_name, where));
  }
  const auto cluster = config.clusters.find(context.cluster);
  if (cluster == config.clusters.end()) {
    return fail(ErrorCode::NotFound,
                fmt::format("cluster \"{}\" of context \"{}\" not found in kubeconfig (clusters: "
                            "{}); fix the context in {} or add the cluster",
                            context.cluster, context_name, names_of(config.clusters), where));
  }

  RestConfig out;
  out.context_name = context_name;
  FED_TRY(resolve_cluster(cluster->first, cluster->second, out));
  if (!context.user.empty()) {
    const auto user = config.users.find(context.user);
    if (user == config.users.end()) {
      return fail(ErrorCode::NotFound,
                  fmt::format("user \"{}\" of context \"{}\" not found in kubeconfig (users: {}); "
                              "fix the context in {} or add the user",
                              context.user, context_name, names_of(config.users), where));
    }
    FED_TRY(resolve_user(user->first, user->second, options.exec_timeout, out));
  }
  out.default_namespace = !options.namespace_override.empty() ? options.namespace_override
                          : !context.namespace_name.empty()   ? context.namespace_name
                                                              : "default";
  return out;
}

Result<RestConfig> rest_config_from_flags(const LoadOptions& options, const fs::path& sa_dir) {
  const std::vector<KubeconfigSource> sources = kubeconfig_sources(options);
  FED_ASSIGN_OR_RETURN(Kubeconfig config, load_kubeconfig(sources));
  if (config.files.empty()) {
    if (options.context.empty() && in_cluster_environment()) {
      FED_ASSIGN_OR_RETURN(RestConfig in_cluster, in_cluster_config(sa_dir));
      if (!options.namespace_override.empty()) {
        in_cluster.default_namespace = options.namespace_override;
      }
      return in_cluster;
    }
    std::vector<std::string> looked;
    for (const KubeconfigSource& s : sources) looked.push_back(s.path.string());
    return fail(ErrorCode::Invalid,
                fmt::format("no kubeconfig found (looked at: {}); pass --kubeconfig, set "
                            "KUBECONFIG, or run inside a cluster",
                            looked.empty() ? std::string("nothing, KUBECONFIG lists no files")
                                           : util::join(looked, ", ")));
  }
  return resolve(config, options);
}

}  // namespace fed::kube

#pragma once
// The kubeconfig model and loading as kubectl does it: the --kubeconfig file alone, else the
// $KUBECONFIG list merged (first file to define a name or current-context wins), else
// ~/.kube/config. Turning a context into a RestConfig is kubeconfig_resolve.hpp.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::kube {

// The exec plugin's interactiveMode: may it prompt the user on our terminal?
enum class InteractiveMode { Never, IfAvailable, Always };

struct ExecEnvVar {
  std::string name;
  std::string value;
};

// users[].user.exec: a credential plugin (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig {
  std::string command;  // a PATH name, or a path made absolute against the defining file
  std::vector<std::string> args;
  std::vector<ExecEnvVar> env;
  std::string api_version;
  // Unset only when the file omitted it for v1 (v1beta1 defaults to IfAvailable, like kubectl);
  // resolving such a user is an error.
  std::optional<InteractiveMode> interactive_mode;
  bool provide_cluster_info = false;
  std::string install_hint;  // shown when the command is missing
};

// clusters[].cluster. Paths are absolute (resolved against the defining file's directory).
struct Cluster {
  std::string server;
  std::string certificate_authority;       // a file path
  std::string certificate_authority_data;  // decoded PEM bytes
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
  std::filesystem::path origin;  // the file that defined it, for messages
};

// users[].user. Paths are absolute; *_data fields hold decoded bytes.
struct User {
  std::string client_certificate;
  std::string client_certificate_data;
  std::string client_key;
  std::string client_key_data;
  std::string token;
  std::string token_file;
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string auth_provider;  // name of a legacy auth-provider; unsupported, resolve() says so
  std::string impersonate;    // "as"; unsupported, resolve() says so
  std::filesystem::path origin;
};

// contexts[].context.
struct Context {
  std::string cluster;
  std::string user;
  std::string namespace_name;  // empty = "default"
  std::filesystem::path origin;
};

// The merged view of every kubeconfig file that was read.
struct Kubeconfig {
  std::map<std::string, Cluster> clusters;
  std::map<std::string, User> users;
  std::map<std::string, Context> contexts;
  std::string current_context;
  std::vector<std::filesystem::path> files;  // files actually read, in precedence order

  // Context names, sorted.
  std::vector<std::string> context_names() const;
  // True when no file defined any cluster, user or context (no kubeconfig to speak of).
  bool empty() const { return clusters.empty() && users.empty() && contexts.empty(); }
};

// The standard kubectl flags that choose a kubeconfig, a context and a namespace.
struct LoadOptions {
  std::string kubeconfig_path;     // --kubeconfig: read only this file, which must exist
  std::string context;             // --context: instead of current-context
  std::string namespace_override;  // -n/--namespace: instead of the context's namespace
  // How long an exec credential plugin may run before it is killed (kubectl-fed passes
  // --request-timeout when it is shorter).
  std::chrono::milliseconds exec_timeout{std::chrono::seconds(60)};
};

// Whether a kubeconfig file that does not exist is an error or is skipped.
enum class MissingFile { Error, Skip };

// One file to read, and what to do if it is missing.
struct KubeconfigSource {
  std::filesystem::path path;
  MissingFile missing = MissingFile::Skip;
};

// The files kubectl would read, in precedence order: --kubeconfig alone (must exist), else each
// distinct non-empty $KUBECONFIG entry, else $HOME/.kube/config (both may be missing).
std::vector<KubeconfigSource> kubeconfig_sources(const LoadOptions& options);

// Parses one file's text. `origin` names it in messages and anchors its relative paths.
// Errors are Invalid and read "<file>:<line>: <problem>; <fix>".
Result<Kubeconfig> parse_kubeconfig(std::string_view yaml, const std::filesystem::path& origin);

// Merges `later` into `into`: clusters, users and contexts `into` already names, and a
// current-context it already has, win (kubectl's rule: the first file to set a value wins).
void merge_kubeconfig(Kubeconfig& into, Kubeconfig later);

// Reads and merges the given sources in order.
Result<Kubeconfig> load_kubeconfig(const std::vector<KubeconfigSource>& sources);

// Reads and merges kubeconfig_sources(options).
Result<Kubeconfig> load_kubeconfig(const LoadOptions& options);

}  // namespace fed::kube

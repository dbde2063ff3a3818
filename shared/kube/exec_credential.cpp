#include "shared/kube/exec_credential.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "shared/util/base64.hpp"
#include "shared/util/rfc3339.hpp"
#include "shared/util/subprocess.hpp"

namespace fed::kube {
namespace {

using nlohmann::json;

Unexpected bad_output(std::string_view what) {
  return fail(ErrorCode::Invalid, std::string(what));
}

// An optional string member of `obj`; a non-string is an error.
Result<std::string> string_member(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::string();
  if (!it->is_string()) return bad_output(fmt::format("status.{} is not a string", key));
  return it->get<std::string>();
}

std::string describe_timeout(std::chrono::milliseconds t) {
  if (t.count() % 1000 == 0) return fmt::format("{}s", t.count() / 1000);
  return fmt::format("{}ms", t.count());
}

}  // namespace

Result<ExecCredential> parse_exec_credential(std::string_view text, std::string_view api_version) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return bad_output("its output is not a JSON object; it must print an ExecCredential on stdout");
  }
  const auto top_string = [&](const char* key) {
    const auto it = doc.find(key);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string kind = top_string("kind");
  if (kind != "ExecCredential") {
    return bad_output(fmt::format("it printed kind \"{}\", expected ExecCredential", kind));
  }
  const std::string version = top_string("apiVersion");
  if (version != api_version) {
    return bad_output(
        fmt::format("it answered in apiVersion \"{}\" but exec.apiVersion is \"{}\"; "
                    "set exec.apiVersion to what the plugin speaks",
                    version, api_version));
  }
  const auto status = doc.find("status");
  if (status == doc.end() || !status->is_object()) {
    return bad_output("its ExecCredential has no status object");
  }
  ExecCredential cred;
  FED_ASSIGN_OR_RETURN(cred.token, string_member(*status, "token"));
  FED_ASSIGN_OR_RETURN(cred.certificate.cert_pem, string_member(*status, "clientCertificateData"));
  FED_ASSIGN_OR_RETURN(cred.certificate.key_pem, string_member(*status, "clientKeyData"));
  if (cred.certificate.cert_pem.empty() != cred.certificate.key_pem.empty()) {
    return bad_output(
        "it returned only one of clientCertificateData and clientKeyData; it must "
        "return both or neither");
  }
  if (cred.token.empty() && cred.certificate.cert_pem.empty()) {
    return bad_output("it returned neither status.token nor a client certificate and key");
  }
  FED_ASSIGN_OR_RETURN(std::string expiry, string_member(*status, "expirationTimestamp"));
  if (!expiry.empty()) {
    auto t = util::parse_rfc3339(expiry);
    if (!t) return Unexpected(std::move(t).error().with_context("status.expirationTimestamp"));
    cred.expiry = *t;
  }
  return cred;
}

std::string exec_info_json(const ExecConfig& config, const ExecClusterInfo& cluster,
                           bool interactive) {
  json info = {{"apiVersion", config.api_version},
               {"kind", "ExecCredential"},
               {"spec", {{"interactive", interactive}}}};
  if (config.provide_cluster_info) {
    json c = json::object();
    c["server"] = cluster.server;
    if (!cluster.ca_pem.empty()) {
      c["certificate-authority-data"] = util::base64_encode(cluster.ca_pem);
    }
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.tls_server_name.empty()) c["tls-server-name"] = cluster.tls_server_name;
    if (!cluster.proxy_url.empty()) c["proxy-url"] = cluster.proxy_url;
    info["spec"]["cluster"] = std::move(c);
  }
  return info.dump();
}

Result<std::shared_ptr<ExecCredentialSource>> ExecCredentialSource::create(ExecConfig config,
                                                                           ExecClusterInfo cluster,
                                                                           std::string user_ref,
                                                                           ExecOptions options) {
  const auto invalid = [&](std::string_view what) {
    return fail(ErrorCode::Invalid, fmt::format("{}: {}", user_ref, what));
  };
  if (config.command.empty()) {
    return invalid("exec.command is empty; set it to the credential plugin to run");
  }
  if (config.api_version.empty()) {
    return invalid(
        fmt::format("exec.apiVersion is not set; set it to {} or {}", kExecApiV1, kExecApiV1Beta1));
  }
  if (config.api_version != kExecApiV1 && config.api_version != kExecApiV1Beta1) {
    return invalid(fmt::format("exec.apiVersion \"{}\" is not supported; use {} or {}",
                               config.api_version, kExecApiV1, kExecApiV1Beta1));
  }
  if (!config.interactive_mode) {
    return invalid(
        fmt::format("exec.interactiveMode must be set for {} plugins; add "
                    "interactiveMode: Never (or IfAvailable, Always)",
                    kExecApiV1));
  }
  return std::shared_ptr<ExecCredentialSource>(new ExecCredentialSource(
      std::move(config), std::move(cluster), std::move(user_ref), std::move(options)));
}

ExecCredentialSource::ExecCredentialSource(ExecConfig config, ExecClusterInfo cluster,
                                           std::string user_ref, ExecOptions options)
    : config_(std::move(config)),
      cluster_(std::move(cluster)),
      user_ref_(std::move(user_ref)),
      options_(std::move(options)) {}

Result<ExecCredential> ExecCredentialSource::credential() {
  std::lock_guard lock(mu_);
  const bool fresh =
      cached_ && (!cached_->expiry || std::chrono::system_clock::now() < *cached_->expiry);
  if (!fresh) {
    cached_.reset();
    FED_ASSIGN_OR_RETURN(cached_, run_plugin());
  }
  return *cached_;
}

Result<std::string> ExecCredentialSource::token() {
  FED_ASSIGN_OR_RETURN(ExecCredential cred, credential());
  return std::move(cred.token);
}

Result<ClientCertificate> ExecCredentialSource::certificate() {
  FED_ASSIGN_OR_RETURN(ExecCredential cred, credential());
  return std::move(cred.certificate);
}

void ExecCredentialSource::invalidate() {
  std::lock_guard lock(mu_);
  cached_.reset();
}

Result<ExecCredential> ExecCredentialSource::run_plugin() const {
  const std::string& command = config_.command;
  const bool tty =
      options_.stdin_is_terminal ? options_.stdin_is_terminal() : ::isatty(STDIN_FILENO) == 1;
  bool interactive = false;
  switch (*config_.interactive_mode) {
    case InteractiveMode::Never:
      break;
    case InteractiveMode::IfAvailable:
      interactive = tty;
      break;
    case InteractiveMode::Always:
      if (!tty) {
        return fail(ErrorCode::Invalid,
                    fmt::format("exec plugin \"{}\" of {} needs a terminal (interactiveMode: "
                                "Always) but standard input is not one; run this in a terminal, "
                                "or log in with the plugin first and set interactiveMode: "
                                "IfAvailable",
                                command, user_ref_));
      }
      interactive = true;
      break;
  }

  util::SubprocessOptions run;
  run.argv.push_back(command);
  run.argv.insert(run.argv.end(), config_.args.begin(), config_.args.end());
  for (const ExecEnvVar& v : config_.env) run.env.emplace_back(v.name, v.value);
  run.env.emplace_back("KUBERNETES_EXEC_INFO", exec_info_json(config_, cluster_, interactive));
  run.stdin_mode = interactive ? util::StdinMode::Inherit : util::StdinMode::Null;
  run.stderr_mode = util::StderrMode::Inherit;
  run.timeout = options_.timeout;

  auto result = util::run_subprocess(run);
  if (!result) {
    const Error& err = result.error();
    const std::string fix = err.code() == ErrorCode::NotFound && !config_.install_hint.empty()
                                ? config_.install_hint
                                : "install the plugin or fix exec.command in the kubeconfig";
    // A plugin that cannot be started is a kubeconfig to fix, as any bad input (exit code 2).
    return fail(ErrorCode::Invalid,
                fmt::format("exec plugin of {}: {}; {}", user_ref_, err.message(), fix));
  }
  if (result->timed_out) {
    return fail(ErrorCode::Unavailable,
                fmt::format("exec plugin \"{}\" of {} did not finish within {} and was killed; run "
                            "it by hand to see where it hangs (e.g. waiting for a login)",
                            command, user_ref_, describe_timeout(options_.timeout)));
  }
  if (!result->succeeded()) {
    return fail(ErrorCode::Permission,
                fmt::format("exec plugin \"{}\" of {} {}; its stderr above says why: fix its "
                            "login or configuration, or exec in the kubeconfig",
                            command, user_ref_, result->describe()));
  }
  auto cred = parse_exec_credential(result->stdout_data, config_.api_version);
  if (!cred) {
    return fail(ErrorCode::Invalid, fmt::format("exec plugin \"{}\" of {}: {}", command, user_ref_,
                                                cred.error().message()));
  }
  return cred;
}

}  // namespace fed::kube

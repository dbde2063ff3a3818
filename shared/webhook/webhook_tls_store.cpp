#include "shared/webhook/webhook_tls_store.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>

#include "shared/kube/apiserver_authentication.hpp"
#include "shared/util/base64.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/write_file_atomic.hpp"

namespace fed::webhook {
namespace {

using nlohmann::json;

const kube::ResourceRef kSecrets{{"", "v1", "secrets"}, "", "", ""};

// Secret data keys.
constexpr const char* kCaCert = "ca.crt";
constexpr const char* kCaKey = "ca.key";
constexpr const char* kCaBundle = "ca-bundle.crt";
constexpr const char* kTlsCert = "tls.crt";
constexpr const char* kTlsKey = "tls.key";
// The callers' CA, as a file of the server's.
constexpr const char* kCallerCa = "caller-ca.crt";

std::string field(const json& data, const char* key) {
  auto decoded = util::base64_decode(data.value(key, ""));
  return decoded ? *decoded : std::string();
}

std::optional<WebhookTls> decode(const json& secret) {
  const json data = secret.value("data", json::object());
  WebhookTls tls{{field(data, kCaCert), field(data, kCaKey)},
                 {field(data, kTlsCert), field(data, kTlsKey)},
                 field(data, kCaBundle)};
  if (tls.ca.cert_pem.empty()) return std::nullopt;
  return tls;
}

json encode(const WebhookTls& tls) {
  return {{kCaCert, util::base64_encode(tls.ca.cert_pem)},
          {kCaKey, util::base64_encode(tls.ca.key_pem)},
          {kCaBundle, util::base64_encode(tls.ca_bundle)},
          {kTlsCert, util::base64_encode(tls.serving.cert_pem)},
          {kTlsKey, util::base64_encode(tls.serving.key_pem)}};
}

}  // namespace

WebhookTlsStore::WebhookTlsStore(std::shared_ptr<kube::DynamicClient> client, std::string ns,
                                 std::filesystem::path dir, WebhookTlsNames names,
                                 WebhookCallers callers)
    : client_(std::move(client)),
      ns_(std::move(ns)),
      dir_(std::move(dir)),
      names_(std::move(names)),
      callers_(callers) {}

http::TlsFiles WebhookTlsStore::files() const {
  http::TlsFiles files{(dir_ / kTlsCert).string(), (dir_ / kTlsKey).string()};
  if (callers_ == WebhookCallers::FrontProxy) files.client_ca_file = (dir_ / kCallerCa).string();
  return files;
}

http::Handler WebhookTlsStore::admitting(http::Handler handler) const {
  return [this, handler = std::move(handler)](const http::Request& request) {
    if (!admits(request)) {
      spdlog::warn(
          "{}: refused a call from {} with certificate CN \"{}\": not a name of "
          "requestheader-allowed-names",
          names_.what, request.remote_address, request.peer ? request.peer->common_name : "");
      return http::Response::text(403,
                                  "this webhook answers only kube-apiserver (its front-proxy "
                                  "client certificate)\n");
    }
    return handler(request);
  };
}

bool WebhookTlsStore::admits(const http::Request& request) const {
  if (callers_ == WebhookCallers::Any) return true;
  if (!request.peer) return false;  // not reached: the handshake asks for a certificate
  std::lock_guard lock(mu_);
  return caller_names_.empty() || std::find(caller_names_.begin(), caller_names_.end(),
                                            request.peer->common_name) != caller_names_.end();
}

Status WebhookTlsStore::sync_callers() {
  FED_ASSIGN_OR_RETURN(auto authentication, kube::read_apiserver_authentication(*client_));
  if (authentication.front_proxy_ca.empty()) {
    return fail(ErrorCode::Unavailable,
                std::string(kube::kApiServerAuthenticationConfigMap) +
                    " has no requestheader-client-ca-file: kube-apiserver runs without "
                    "--requestheader-client-ca-file, so the " +
                    names_.what +
                    " cannot check that its caller is the API server (set it as kubeadm does, "
                    "or install without --webhook-caller-auth)");
  }
  const std::string path = files().client_ca_file;
  auto have = util::read_file(path);
  if (!have || *have != authentication.front_proxy_ca) {
    FED_TRY(util::write_file_atomic(path, authentication.front_proxy_ca, 0644));
  }
  std::lock_guard lock(mu_);
  caller_names_ = std::move(authentication.front_proxy_names);
  return ok();
}

Result<WebhookTls> WebhookTlsStore::sync(std::chrono::system_clock::time_point now) {
  const auto ref = kSecrets.in_namespace(ns_).named(names_.secret);
  auto existing = client_->get(ref);
  if (!existing && !existing.error().is_not_found()) {
    return existing.error().to_error().with_context("Secret " + ns_ + "/" + names_.secret);
  }
  const std::optional<WebhookTls> current =
      existing ? decode(*existing) : std::optional<WebhookTls>();
  FED_ASSIGN_OR_RETURN(auto tls, renew(current, service_dns_names(names_.service, ns_), now));
  if (!current || !(tls == *current)) {
    kube::ApiResult<json> written = [&] {
      if (!existing) {
        json secret{{"apiVersion", "v1"},
                    {"kind", "Secret"},
                    {"type", "Opaque"},
                    {"metadata",
                     {{"name", names_.secret},
                      {"namespace", ns_},
                      {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
                    {"data", encode(tls)}};
        return client_->create(kSecrets.in_namespace(ns_), secret);
      }
      json secret = *existing;  // keeps metadata.resourceVersion: a conditional update
      secret["data"] = encode(tls);
      return client_->update(ref, secret);
    }();
    if (!written) {
      return written.error().to_error().with_context("writing Secret " + ns_ + "/" + names_.secret);
    }
    spdlog::info("{}: {} TLS material in Secret {}/{} (serving certificate for {}.{}.svc)",
                 names_.what, current ? "renewed" : "created", ns_, names_.secret, names_.service,
                 ns_);
  }
  FED_TRY(write_files(tls));
  if (callers_ == WebhookCallers::FrontProxy) FED_TRY(sync_callers());
  return tls;
}

Status WebhookTlsStore::write_files(const WebhookTls& tls) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return fail(ErrorCode::Internal, dir_.string() + ": " + ec.message());
  ::chmod(dir_.c_str(), 0700);
  const auto files = this->files();
  auto cert = util::read_file(files.cert_file);
  auto key = util::read_file(files.key_file);
  if (cert && key && *cert == tls.serving.cert_pem && *key == tls.serving.key_pem) return ok();
  // Key first: the server reloads on either file's change and keeps the old pair until both
  // match again.
  FED_TRY(util::write_file_atomic(files.key_file, tls.serving.key_pem, 0600));
  FED_TRY(util::write_file_atomic(files.cert_file, tls.serving.cert_pem, 0644));
  return ok();
}

}  // namespace fed::webhook

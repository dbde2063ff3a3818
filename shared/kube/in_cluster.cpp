#include "shared/kube/in_cluster.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "shared/kube/token_credentials.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/strings.hpp"

namespace fed::kube {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

bool in_cluster_environment() {
  return !env_or_empty("KUBERNETES_SERVICE_HOST").empty() &&
         !env_or_empty("KUBERNETES_SERVICE_PORT").empty();
}

Result<RestConfig> in_cluster_config(const std::filesystem::path& sa_dir) {
  std::string host = env_or_empty("KUBERNETES_SERVICE_HOST");
  const std::string port = env_or_empty("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return fail(ErrorCode::NotFound,
                "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                "are not both set; pass --kubeconfig or set KUBECONFIG instead");
  }
  // An IPv6 literal needs brackets in a URL (net.JoinHostPort does the same).
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";

  RestConfig config;
  config.server = fmt::format("https://{}:{}", host, port);
  config.cluster_name = "in-cluster";
  config.context_name = "in-cluster";

  const std::filesystem::path token_path = sa_dir / "token";
  if (auto token = util::read_file(token_path); !token) {
    return fail(ErrorCode::NotFound,
                fmt::format("in-cluster config: cannot read the ServiceAccount token ({}); mount "
                            "one (automountServiceAccountToken: true) or use a kubeconfig",
                            token.error().message()));
  }
  config.credentials =
      std::make_shared<TokenFileCredential>(token_path, "the in-cluster ServiceAccount");

  // Like client-go, a missing CA is not fatal: the system trust store is used instead.
  if (auto ca = util::read_file(sa_dir / "ca.crt")) {
    config.ca_pem = std::move(ca).value();
  } else {
    spdlog::warn("in-cluster config: no CA bundle ({}); using the system trust store",
                 ca.error().message());
  }
  if (auto ns = util::read_file(sa_dir / "namespace")) {
    const std::string trimmed(util::trim(*ns));
    if (!trimmed.empty()) config.default_namespace = trimmed;
  }
  return config;
}

}  // namespace fed::kube

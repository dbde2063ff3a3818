#include "agent/roles/metrics_server.hpp"

#include <netinet/in.h>
#include <stdlib.h>  // mkdtemp
#include <unistd.h>  // gethostname

#include <system_error>

#include "agent/roles/api_config.hpp"
#include "shared/http/address.hpp"
#include "shared/metrics/text_format.hpp"
#include "shared/pki/certificates.hpp"
#include "shared/util/write_file_atomic.hpp"

namespace fed::agent {
namespace {

using namespace std::chrono_literals;

// Regenerated at every start, so a year is plenty; Prometheus is told to skip verification
// or given the certificate, as for kube-scheduler's self-signed one.
constexpr std::chrono::seconds kCertificateValidity = 24h * 365;

bool is_loopback(const http::SocketAddress& address) {
  const auto* sa = reinterpret_cast<const sockaddr*>(&address.storage);
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
  }
  return false;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

// A new private directory (mode 0700) for the serving pair.
Result<std::filesystem::path> private_directory(const std::string& role) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("kubectl-fed-metrics-" + role + "-XXXXXX"))
          .string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return fail(ErrorCode::Internal,
                "metrics: creating a directory for its certificate (" + pattern +
                    "): " + std::error_code(errno, std::generic_category()).message());
  }
  return std::filesystem::path(pattern);
}

// A self-signed serving pair in `dir`: tls.crt and tls.key.
Status write_self_signed(const std::filesystem::path& dir, const std::string& role) {
  FED_ASSIGN_OR_RETURN(auto ca,
                       pki::make_ca("fed-agent " + role + " metrics", kCertificateValidity));
  FED_ASSIGN_OR_RETURN(auto serving,
                       pki::make_serving(ca, {host_name(), "localhost"}, kCertificateValidity));
  FED_TRY(util::write_file_atomic(dir / "tls.crt", serving.cert_pem + ca.cert_pem, 0644));
  return util::write_file_atomic(dir / "tls.key", serving.key_pem, 0600);
}

}  // namespace

std::string metrics_bind_address(Role role, const AgentOptions& options) {
  if (!options.metrics_bind_address.empty()) return options.metrics_bind_address;
  return role == Role::EtcdProxy ? kDefaultEtcdProxyMetricsBindAddress : kDefaultMetricsBindAddress;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(Role role, const AgentOptions& options,
                                                            const metrics::Registry& registry) {
  const std::string role_name(to_string(role));
  const std::string address = metrics_bind_address(role, options);
  FED_ASSIGN_OR_RETURN(auto resolved, http::resolve_listen_address(address));
  std::unique_ptr<MetricsServer> self(new MetricsServer());
  http::ServerOptions server_options;
  server_options.bind_address = address;
  server_options.name = "metrics";
  if (!is_loopback(resolved)) {
    FED_ASSIGN_OR_RETURN(auto config, api_config(options, "fed-agent/" + role_name + " metrics"));
    FED_ASSIGN_OR_RETURN(auto client, kube::DynamicClient::create(std::move(config)));
    self->auth_ =
        std::make_unique<kube::DelegatedAuth>(std::move(client), kube::DelegatedAuth::Options{});
    // Owned by `self` at once: its destructor removes the directory on any failure below.
    FED_ASSIGN_OR_RETURN(self->cert_dir_, private_directory(role_name));
    FED_TRY(write_self_signed(self->cert_dir_, role_name));
    server_options.tls = http::TlsFiles{(self->cert_dir_ / "tls.crt").string(),
                                        (self->cert_dir_ / "tls.key").string()};
  }
  FED_ASSIGN_OR_RETURN(self->server_, http::Server::create(std::move(server_options)));
  kube::DelegatedAuth* auth = self->auth_.get();
  self->server_->handle("/metrics", [&registry, auth](const http::Request& request) {
    if (auth) {
      if (auto refused = auth->check(request, "get")) return std::move(*refused);
    }
    http::Response r = http::Response::text(200, registry.render());
    r.content_type = std::string(metrics::kTextContentType);
    return r;
  });
  FED_TRY(self->server_->start());
  return self;
}

MetricsServer::~MetricsServer() {
  if (server_) server_->stop();
  if (!cert_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(cert_dir_, ignored);
  }
}

}  // namespace fed::agent

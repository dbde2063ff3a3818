// TLS from in-memory PEM against a loopback HTTPS server with a test CA: CA trust, tls-server-name,
// client certificates (static and from a CertificateSource), insecure-skip-tls-verify.
#include <doctest/doctest.h>

#include "shared/kube/rest_client.hpp"
#include "tests/unit/shared/kube/loopback_server.hpp"

namespace fed::kube {

using namespace std::chrono_literals;
using testing::LoopbackServer;
using testing::TestPki;
using testing::TestRequest;
using testing::TestResponse;
using testing::TlsOptions;

namespace {

RestConfig tls_config(const std::string& server, const std::string& ca) {
  RestConfig c;
  c.server = server;
  c.cluster_name = "tls";
  c.ca_pem = ca;
  c.qps = 0;
  return c;
}

ApiResult<HttpResponse> get_api(RestConfig c) {
  RestClientOptions o;
  o.max_retries = 1;
  o.backoff = BackoffPolicy{1ms, 5ms, 2.0};
  auto client = RestClient::create(std::move(c), o);
  REQUIRE(client);
  ApiRequest r;
  r.path = "/api";
  return (*client)->send(r);
}

LoopbackServer::Handler echo_cn() {
  return [](const TestRequest& req) {
    return TestResponse::json(200, R"({"cn":")" + req.client_cert_cn + R"("})");
  };
}

class RotatingCertificate final : public CertificateSource {
 public:
  explicit RotatingCertificate(const TestPki& pki) : pki_(pki) {}
  Result<ClientCertificate> certificate() override {
    const auto kp = pki_.client("exec-user-" + std::to_string(++calls));
    return ClientCertificate{kp.cert_pem, kp.key_pem};
  }
  int calls = 0;

 private:
  const TestPki& pki_;
};

}  // namespace

TEST_CASE("the server certificate is verified against the CA given in memory") {
  const auto pki = TestPki::create();
  const auto cert = pki.server({"localhost"}, {"127.0.0.1"});
  LoopbackServer server(echo_cn(), TlsOptions{cert.cert_pem, cert.key_pem, ""});
  auto ok = get_api(tls_config(server.url(), pki.ca.cert_pem));
  REQUIRE(ok);
  CHECK(ok->status == 200);

  const auto other = TestPki::create("some-other-ca");
  auto bad = get_api(tls_config(server.url(), other.ca.cert_pem));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().transport_failure() == TransportFailure::Tls);
  CHECK(server.request_count() == 1);  // not retried, never reached HTTP
  CHECK(bad.error().to_error().message().find("certificate-authority-data") != std::string::npos);

  auto insecure = tls_config(server.url(), "");
  insecure.insecure_skip_tls_verify = true;
  CHECK(get_api(insecure));
}

TEST_CASE("tls-server-name: verified against that name while connecting to the real address") {
  const auto pki = TestPki::create();
  const auto cert = pki.server({"apiserver.internal"}, {});  // no IP SAN
  LoopbackServer server(echo_cn(), TlsOptions{cert.cert_pem, cert.key_pem, ""});
  auto plain = get_api(tls_config(server.url(), pki.ca.cert_pem));
  REQUIRE_FALSE(plain);
  CHECK(plain.error().transport_failure() == TransportFailure::Tls);

  auto named = tls_config(server.url(), pki.ca.cert_pem);
  named.tls_server_name = "apiserver.internal";
  auto r = get_api(named);
  if (!r) FAIL(r.error().to_error().message());
  CHECK(r->status == 200);
  // The Host header still names the real server, as Go's client does.
  CHECK(server.requests().back().header("host") == "127.0.0.1:" + std::to_string(server.port()));
}

TEST_CASE("client certificates: static PEM and a rotating CertificateSource") {
  const auto pki = TestPki::create();
  const auto cert = pki.server({"localhost"}, {"127.0.0.1"});
  LoopbackServer server(echo_cn(), TlsOptions{cert.cert_pem, cert.key_pem, pki.ca.cert_pem});

  auto none = get_api(tls_config(server.url(), pki.ca.cert_pem));
  REQUIRE_FALSE(none);  // the server requires a client certificate

  auto with_cert = tls_config(server.url(), pki.ca.cert_pem);
  const auto client = pki.client("alice");
  with_cert.client_certificate = ClientCertificate{client.cert_pem, client.key_pem};
  auto r = get_api(with_cert);
  if (!r) FAIL(r.error().to_error().message());
  CHECK(r->body == R"({"cn":"alice"})");

  auto dynamic = tls_config(server.url(), pki.ca.cert_pem);
  auto source = std::make_shared<RotatingCertificate>(pki);
  dynamic.certificate_source = source;
  RestClientOptions o;
  auto c = RestClient::create(dynamic, o);
  REQUIRE(c);
  ApiRequest req;
  req.path = "/api";
  auto first = (*c)->send(req);
  REQUIRE(first);
  CHECK(first->body == R"({"cn":"exec-user-1"})");
  // A new certificate is not sent over a connection authenticated with the old one.
  auto second = (*c)->send(req);
  REQUIRE(second);
  CHECK(second->body == R"({"cn":"exec-user-2"})");
}

}  // namespace fed::kube

#include "pki/certificates.hpp"

#include <doctest/doctest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "raii/c_handle.hpp"

using namespace std::chrono_literals;
using fed::pki::make_ca;
using fed::pki::make_serving;

namespace {

using Cert = fed::CHandle<X509, X509_free>;

Cert parse(const std::string& pem) {
  fed::CHandle<BIO, BIO_free_all> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// What a TLS client does with the caBundle: verify the chain for purpose serverAuth, then the
// host name against the subjectAltName.
bool client_accepts(const std::string& ca_pem, const std::string& cert_pem,
                    const std::string& host) {
  Cert ca = parse(ca_pem);
  Cert cert = parse(cert_pem);
  if (!ca || !cert) return false;
  fed::CHandle<X509_STORE, X509_STORE_free> store(X509_STORE_new());
  X509_STORE_add_cert(store.get(), ca.get());
  fed::CHandle<X509_STORE_CTX, X509_STORE_CTX_free> ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), X509_PURPOSE_SSL_SERVER);
  const bool chain = X509_verify_cert(ctx.get()) == 1;
  return chain && X509_check_host(cert.get(), host.data(), host.size(), 0, nullptr) == 1;
}

}  // namespace

TEST_CASE("a serving certificate from our CA passes a TLS client's checks for its names only") {
  auto ca = make_ca("kubectl-fed webhook CA", 24h * 365);
  REQUIRE(ca);
  auto serving = make_serving(*ca,
                              {"fed-manager-webhook.kubectl-fed-system.svc",
                               "fed-manager-webhook.kubectl-fed-system.svc.cluster.local"},
                              24h * 90);
  REQUIRE(serving);
  CHECK(serving->key_pem.find("PRIVATE KEY") != std::string::npos);
  CHECK(client_accepts(ca->cert_pem, serving->cert_pem,
                       "fed-manager-webhook.kubectl-fed-system.svc"));
  CHECK(client_accepts(ca->cert_pem, serving->cert_pem,
                       "fed-manager-webhook.kubectl-fed-system.svc.cluster.local"));
  CHECK_FALSE(client_accepts(ca->cert_pem, serving->cert_pem, "kubernetes.default.svc"));
  CHECK(fed::pki::signed_by(serving->cert_pem, ca->cert_pem));

  auto other = make_ca("another CA", 24h);
  REQUIRE(other);
  CHECK_FALSE(client_accepts(other->cert_pem, serving->cert_pem,
                             "fed-manager-webhook.kubectl-fed-system.svc"));
  CHECK_FALSE(fed::pki::signed_by(serving->cert_pem, other->cert_pem));
}

TEST_CASE("validity: notAfter is now + validity") {
  auto ca = make_ca("ca", 48h);
  REQUIRE(ca);
  auto end = fed::pki::not_after(ca->cert_pem);
  REQUIRE(end);
  const auto expected = std::chrono::system_clock::now() + 48h;
  CHECK(std::chrono::abs(*end - expected) < 1min);
}

TEST_CASE("bad input is refused") {
  CHECK(make_serving(fed::pki::CertifiedKey{"not a cert", "not a key"}, {"a"}, 1h).error().code() ==
        fed::ErrorCode::Invalid);
  auto ca = make_ca("ca", 1h);
  REQUIRE(ca);
  CHECK(make_serving(*ca, {}, 1h).error().code() == fed::ErrorCode::Invalid);
  CHECK_FALSE(fed::pki::not_after("garbage"));
  CHECK_FALSE(fed::pki::signed_by("garbage", ca->cert_pem));
}

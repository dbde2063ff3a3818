#include "shared/pki/certificates.hpp"

#include <doctest/doctest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "shared/raii/c_handle.hpp"

using namespace std::chrono_literals;
using fed::pki::make_ca;
using fed::pki::make_serving;

namespace {

using Cert = fed::CHandle<X509, X509_free>;

void free_extensions(STACK_OF(X509_EXTENSION) * exts) {
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
}

Cert parse(const std::string& pem) {
  fed::CHandle<BIO, BIO_free_all> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return Cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
}

// Whether `cert_pem` chains to `ca_pem` for `purpose` (X509_PURPOSE_SSL_SERVER: what a TLS
// client checks; X509_PURPOSE_SSL_CLIENT: what an mTLS server checks).
bool chains(const std::string& ca_pem, const std::string& cert_pem, int purpose) {
  Cert ca = parse(ca_pem);
  Cert cert = parse(cert_pem);
  if (!ca || !cert) return false;
  fed::CHandle<X509_STORE, X509_STORE_free> store(X509_STORE_new());
  X509_STORE_add_cert(store.get(), ca.get());
  fed::CHandle<X509_STORE_CTX, X509_STORE_CTX_free> ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), cert.get(), nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), purpose);
  return X509_verify_cert(ctx.get()) == 1;
}

// What a TLS client does with the caBundle: verify the chain for purpose serverAuth, then the
// host name against the subjectAltName.
bool client_accepts(const std::string& ca_pem, const std::string& cert_pem,
                    const std::string& host) {
  Cert cert = parse(cert_pem);
  return cert && chains(ca_pem, cert_pem, X509_PURPOSE_SSL_SERVER) &&
         X509_check_host(cert.get(), host.data(), host.size(), 0, nullptr) == 1;
}

bool names_ip(const std::string& cert_pem, const std::string& ip) {
  Cert cert = parse(cert_pem);
  return cert && X509_check_ip_asc(cert.get(), ip.c_str(), 0) == 1;
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

TEST_CASE("validity: notBefore is now - 5 min, notAfter is now + validity") {
  auto ca = make_ca("ca", 48h);
  REQUIRE(ca);
  auto end = fed::pki::not_after(ca->cert_pem);
  auto start = fed::pki::not_before(ca->cert_pem);
  REQUIRE(end);
  REQUIRE(start);
  const auto now = std::chrono::system_clock::now();
  CHECK(std::chrono::abs(*end - (now + 48h)) < 1min);
  CHECK(std::chrono::abs(*start - (now - 5min)) < 1min);
}

TEST_CASE("a certificate request carries the subject and names, signed by its own key") {
  auto request = fed::pki::make_certificate_request(
      {"system:node:kubectl-fed-c2", {"system:nodes"}, {"vk.example"}, {"10.244.0.7", "fd00::7"}});
  REQUIRE(request);
  fed::CHandle<BIO, BIO_free_all> bio(
      BIO_new_mem_buf(request->csr_pem.data(), static_cast<int>(request->csr_pem.size())));
  fed::CHandle<X509_REQ, X509_REQ_free> req(
      PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr));
  REQUIRE(req);
  CHECK(X509_REQ_verify(req.get(), X509_REQ_get0_pubkey(req.get())) == 1);
  char line[256];
  X509_NAME_oneline(X509_REQ_get_subject_name(req.get()), line, sizeof line);
  CHECK(std::string(line) == "/O=system:nodes/CN=system:node:kubectl-fed-c2");
  fed::CHandle<STACK_OF(X509_EXTENSION), free_extensions> exts(X509_REQ_get_extensions(req.get()));
  REQUIRE(exts);
  auto* names = static_cast<GENERAL_NAMES*>(
      X509V3_get_d2i(exts.get(), NID_subject_alt_name, nullptr, nullptr));
  REQUIRE(names);
  std::vector<std::string> seen;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      seen.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(n->d.dNSName)));
    } else if (n->type == GEN_IPADD) {
      seen.push_back("ip/" + std::to_string(ASN1_STRING_length(n->d.iPAddress)));
    }
  }
  GENERAL_NAMES_free(names);
  CHECK(seen == std::vector<std::string>{"vk.example", "ip/4", "ip/16"});
  CHECK(request->key_pem.find("PRIVATE KEY") != std::string::npos);

  CHECK(fed::pki::make_certificate_request({"", {}, {}, {}}).error().code() ==
        fed::ErrorCode::Invalid);
  auto bad_ip = fed::pki::make_certificate_request({"cn", {}, {}, {"10.0.0.300"}});
  REQUIRE_FALSE(bad_ip);
  CHECK(bad_ip.error().message().find("10.0.0.300") != std::string::npos);
}

TEST_CASE("an etcd member's certificate serves its IPs and is a client of its peers") {
  auto ca = make_ca("kubectl-fed federation etcd CA", 24h);
  REQUIRE(ca);
  auto member = fed::pki::make_signed(*ca, {"c1", {}, {"localhost"}, {"127.0.0.1", "172.31.0.1"}},
                                      fed::pki::KeyUsage::ServerAndClient, 24h);
  REQUIRE(member);
  CHECK(chains(ca->cert_pem, member->cert_pem, X509_PURPOSE_SSL_SERVER));
  CHECK(chains(ca->cert_pem, member->cert_pem, X509_PURPOSE_SSL_CLIENT));
  CHECK(names_ip(member->cert_pem, "172.31.0.1"));
  CHECK(names_ip(member->cert_pem, "127.0.0.1"));
  CHECK_FALSE(names_ip(member->cert_pem, "172.31.0.2"));

  // The manager's: a client only, so it cannot pose as a member.
  auto client = fed::pki::make_signed(*ca, {"fed-manager", {"kubectl-fed"}, {}, {}},
                                      fed::pki::KeyUsage::Client, 24h);
  REQUIRE(client);
  CHECK(chains(ca->cert_pem, client->cert_pem, X509_PURPOSE_SSL_CLIENT));
  CHECK_FALSE(chains(ca->cert_pem, client->cert_pem, X509_PURPOSE_SSL_SERVER));
}

TEST_CASE("bad input is refused") {
  CHECK(make_serving(fed::pki::CertifiedKey{"not a cert", "not a key"}, {"a"}, 1h).error().code() ==
        fed::ErrorCode::Invalid);
  auto ca = make_ca("ca", 1h);
  REQUIRE(ca);
  CHECK(make_serving(*ca, {}, 1h).error().code() == fed::ErrorCode::Invalid);
  CHECK(
      fed::pki::make_signed(*ca, {"", {}, {}, {}}, fed::pki::KeyUsage::Client, 1h).error().code() ==
      fed::ErrorCode::Invalid);
  auto bad_ip =
      fed::pki::make_signed(*ca, {"m", {}, {}, {"300.1.1.1"}}, fed::pki::KeyUsage::Server, 1h);
  REQUIRE_FALSE(bad_ip);
  CHECK(bad_ip.error().message().find("300.1.1.1") != std::string::npos);
  CHECK_FALSE(fed::pki::not_after("garbage"));
  CHECK_FALSE(fed::pki::signed_by("garbage", ca->cert_pem));
}

#include "tests/unit/shared/kube/test_pki.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <stdexcept>

namespace fed::kube::testing {

namespace {

std::string bio_string(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string s(data, static_cast<size_t>(n));
  BIO_free(bio);
  return s;
}

void add_ext(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) throw std::runtime_error("test pki: bad extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

KeyPair make_cert(const std::string& cn, const KeyPair* ca, bool is_ca, const std::string& san,
                  const char* eku) {
  static std::atomic<long> serial{1};
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* ca_cert = nullptr;
  EVP_PKEY* ca_key = nullptr;
  if (ca != nullptr) {
    BIO* cb = BIO_new_mem_buf(ca->cert_pem.data(), static_cast<int>(ca->cert_pem.size()));
    ca_cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
    BIO_free(cb);
    BIO* kb = BIO_new_mem_buf(ca->key_pem.data(), static_cast<int>(ca->key_pem.size()));
    ca_key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
    BIO_free(kb);
  }
  X509* issuer = ca_cert != nullptr ? ca_cert : cert;
  X509_set_issuer_name(cert, X509_get_subject_name(issuer));
  if (is_ca) {
    add_ext(cert, issuer, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(cert, issuer, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_ext(cert, issuer, NID_subject_key_identifier, "hash");
  } else {
    add_ext(cert, issuer, NID_basic_constraints, "critical,CA:FALSE");
    add_ext(cert, issuer, NID_key_usage, "critical,digitalSignature,keyEncipherment");
    add_ext(cert, issuer, NID_ext_key_usage, eku);
    add_ext(cert, issuer, NID_authority_key_identifier, "keyid:always");
    if (!san.empty()) add_ext(cert, issuer, NID_subject_alt_name, san);
  }
  X509_sign(cert, ca_key != nullptr ? ca_key : key, EVP_sha256());
  BIO* cert_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(cert_bio, cert);
  BIO* key_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(key_bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  KeyPair kp{bio_string(cert_bio), bio_string(key_bio)};
  X509_free(cert);
  EVP_PKEY_free(key);
  if (ca_cert != nullptr) X509_free(ca_cert);
  if (ca_key != nullptr) EVP_PKEY_free(ca_key);
  return kp;
}

}  // namespace

TestPki TestPki::create(const std::string& ca_name) {
  TestPki pki;
  pki.ca = make_cert(ca_name, nullptr, true, "", "");
  return pki;
}

KeyPair TestPki::server(const std::vector<std::string>& dns,
                        const std::vector<std::string>& ips) const {
  std::string san;
  for (const auto& d : dns) san += (san.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const auto& i : ips) san += (san.empty() ? "" : ",") + std::string("IP:") + i;
  return make_cert(dns.empty() ? "server" : dns.front(), &ca, false, san, "serverAuth");
}

KeyPair TestPki::client(const std::string& common_name) const {
  return make_cert(common_name, &ca, false, "", "clientAuth");
}

}  // namespace fed::kube::testing

#include "shared/pki/certificates.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "shared/pki/openssl_error.hpp"
#include "shared/raii/c_handle.hpp"

namespace fed::pki {
namespace {

using Bio = CHandle<BIO, BIO_free_all>;
using Pkey = CHandle<EVP_PKEY, EVP_PKEY_free>;
using Cert = CHandle<X509, X509_free>;
using Bignum = CHandle<BIGNUM, BN_free>;
using Asn1Time = CHandle<ASN1_TIME, ASN1_TIME_free>;

// Certificates start this long ago so a peer whose clock is a little behind accepts them.
constexpr long kBackdateSeconds = 5 * 60;

Unexpected failure(std::string what) {
  return fail(ErrorCode::Internal, std::move(what) + ": " + openssl_error());
}

Result<Pkey> new_key() {
  Pkey key(EVP_EC_gen("P-256"));
  if (!key) return failure("generate an ECDSA P-256 key");
  return key;
}

Result<std::string> pem_of(int (*write)(BIO*, void*), void* object, std::string what) {
  Bio bio(BIO_new(BIO_s_mem()));
  if (!bio || write(bio.get(), object) != 1) return failure("encode " + what);
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

int write_cert(BIO* bio, void* cert) {
  return PEM_write_bio_X509(bio, static_cast<X509*>(cert));
}
int write_key(BIO* bio, void* key) {
  return PEM_write_bio_PrivateKey(bio, static_cast<EVP_PKEY*>(key), nullptr, nullptr, 0, nullptr,
                                  nullptr);
}

int write_request(BIO* bio, void* req) {
  return PEM_write_bio_X509_REQ(bio, static_cast<X509_REQ*>(req));
}

void free_extensions(STACK_OF(X509_EXTENSION) * exts) {
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
}

Result<std::chrono::system_clock::time_point> time_of(const ASN1_TIME* t, std::string_view what) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1) {
    return fail(ErrorCode::Invalid, "certificate " + std::string(what) + ": " + openssl_error());
  }
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

Result<Cert> read_cert(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Cert cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!cert) return fail(ErrorCode::Invalid, "certificate: " + openssl_error());
  return cert;
}

Result<Pkey> read_key(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Pkey key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return fail(ErrorCode::Invalid, "private key: " + openssl_error());
  return key;
}

Status add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  CHandle<X509_EXTENSION, X509_EXTENSION_free> ext(
      X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return failure("certificate extension " + value);
  }
  return ok();
}

// The subject's organizations (O) and common name (CN) into `name`.
void set_subject_name(X509_NAME* name, const RequestSubject& subject) {
  for (const auto& org : subject.organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(subject.common_name.c_str()),
                             -1, -1, 0);
}

// The subjectAltName value ("DNS:a,IP:1.2.3.4") of the subject; empty when it has none.
// Invalid when an IP address does not parse.
Result<std::string> subject_alt_names(const RequestSubject& subject) {
  std::string san;
  for (const auto& name : subject.dns_names) san += (san.empty() ? "DNS:" : ",DNS:") + name;
  for (const auto& ip : subject.ip_addresses) {
    CHandle<ASN1_OCTET_STRING, ASN1_OCTET_STRING_free> parsed(a2i_IPADDRESS(ip.c_str()));
    if (!parsed) {
      openssl_error();
      return fail(ErrorCode::Invalid, "certificate subject: '" + ip + "' is not an IP address");
    }
    san += (san.empty() ? "IP:" : ",IP:") + ip;
  }
  return san;
}

// A certificate for `key` named after `subject`, serial random, valid for `validity`; issuer
// and extensions are the caller's.
Result<Cert> new_cert(EVP_PKEY* key, const RequestSubject& subject, std::chrono::seconds validity,
                      TimePoint now) {
  Cert cert(X509_new());
  if (!cert) return failure("allocate a certificate");
  X509_set_version(cert.get(), 2);  // v3
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return failure("random serial");
  serial[0] &= 0x7f;  // positive
  Bignum bn(BN_bin2bn(serial, sizeof serial, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) {
    return failure("certificate serial");
  }
  std::time_t at = std::chrono::system_clock::to_time_t(now);
  if (!X509_time_adj_ex(X509_getm_notBefore(cert.get()), 0, -kBackdateSeconds, &at) ||
      !X509_time_adj_ex(X509_getm_notAfter(cert.get()), 0, static_cast<long>(validity.count()),
                        &at)) {
    return failure("certificate validity");
  }
  set_subject_name(X509_get_subject_name(cert.get()), subject);
  if (X509_set_pubkey(cert.get(), key) != 1) return failure("certificate key");
  return cert;
}

Result<CertifiedKey> encode(X509* cert, EVP_PKEY* key) {
  FED_ASSIGN_OR_RETURN(auto cert_pem, pem_of(write_cert, cert, "certificate"));
  FED_ASSIGN_OR_RETURN(auto key_pem, pem_of(write_key, key, "private key"));
  return CertifiedKey{std::move(cert_pem), std::move(key_pem)};
}

}  // namespace

Result<CertifiedKey> make_ca(std::string_view common_name, std::chrono::seconds validity,
                             TimePoint now) {
  FED_ASSIGN_OR_RETURN(auto key, new_key());
  FED_ASSIGN_OR_RETURN(
      auto cert,
      new_cert(key.get(), RequestSubject{std::string(common_name), {}, {}, {}}, validity, now));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get()));
  FED_TRY(add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE"));
  FED_TRY(add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
  FED_TRY(add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash"));
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) return failure("sign the CA");
  return encode(cert.get(), key.get());
}

Result<CertifiedKey> make_serving(const CertifiedKey& ca, const std::vector<std::string>& dns_names,
                                  std::chrono::seconds validity, TimePoint now) {
  if (dns_names.empty()) return fail(ErrorCode::Invalid, "a serving certificate needs a DNS name");
  return make_signed(ca, RequestSubject{dns_names.front(), {}, dns_names, {}}, KeyUsage::Server,
                     validity, now);
}

Result<CertifiedKey> make_signed(const CertifiedKey& ca, const RequestSubject& subject,
                                 KeyUsage usage, std::chrono::seconds validity, TimePoint now) {
  if (subject.common_name.empty()) {
    return fail(ErrorCode::Invalid, "a certificate needs a common name");
  }
  FED_ASSIGN_OR_RETURN(auto san, subject_alt_names(subject));
  FED_ASSIGN_OR_RETURN(auto ca_cert, read_cert(ca.cert_pem));
  FED_ASSIGN_OR_RETURN(auto ca_key, read_key(ca.key_pem));
  FED_ASSIGN_OR_RETURN(auto key, new_key());
  FED_ASSIGN_OR_RETURN(auto cert, new_cert(key.get(), subject, validity, now));
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  FED_TRY(add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  FED_TRY(add_extension(cert.get(), ca_cert.get(), NID_key_usage,
                        "critical,digitalSignature,keyEncipherment"));
  const char* extended = usage == KeyUsage::Server   ? "serverAuth"
                         : usage == KeyUsage::Client ? "clientAuth"
                                                     : "serverAuth,clientAuth";
  FED_TRY(add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage, extended));
  if (!san.empty()) {
    FED_TRY(add_extension(cert.get(), ca_cert.get(), NID_subject_alt_name, san));
  }
  if (X509_sign(cert.get(), ca_key.get(), EVP_sha256()) == 0) {
    return failure("sign the certificate");
  }
  return encode(cert.get(), key.get());
}

Result<CertificateRequest> make_certificate_request(const RequestSubject& subject) {
  if (subject.common_name.empty()) {
    return fail(ErrorCode::Invalid, "a certificate request needs a common name");
  }
  FED_ASSIGN_OR_RETURN(auto san, subject_alt_names(subject));
  FED_ASSIGN_OR_RETURN(auto key, new_key());
  CHandle<X509_REQ, X509_REQ_free> req(X509_REQ_new());
  if (!req) return failure("allocate a certificate request");
  set_subject_name(X509_REQ_get_subject_name(req.get()), subject);
  if (X509_REQ_set_pubkey(req.get(), key.get()) != 1) return failure("certificate request key");
  if (!san.empty()) {
    CHandle<STACK_OF(X509_EXTENSION), free_extensions> exts(sk_X509_EXTENSION_new_null());
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, san.c_str());
    if (!exts || !ext || sk_X509_EXTENSION_push(exts.get(), ext) == 0) {
      if (ext) X509_EXTENSION_free(ext);
      return failure("certificate request subjectAltName");
    }
    if (X509_REQ_add_extensions(req.get(), exts.get()) != 1) {
      return failure("certificate request extensions");
    }
  }
  if (X509_REQ_sign(req.get(), key.get(), EVP_sha256()) == 0) {
    return failure("sign the certificate request");
  }
  FED_ASSIGN_OR_RETURN(auto csr_pem, pem_of(write_request, req.get(), "certificate request"));
  FED_ASSIGN_OR_RETURN(auto key_pem, pem_of(write_key, key.get(), "private key"));
  return CertificateRequest{std::move(csr_pem), std::move(key_pem)};
}

Result<std::chrono::system_clock::time_point> not_before(std::string_view cert_pem) {
  FED_ASSIGN_OR_RETURN(auto cert, read_cert(cert_pem));
  return time_of(X509_get0_notBefore(cert.get()), "notBefore");
}

Result<std::chrono::system_clock::time_point> not_after(std::string_view cert_pem) {
  FED_ASSIGN_OR_RETURN(auto cert, read_cert(cert_pem));
  return time_of(X509_get0_notAfter(cert.get()), "notAfter");
}

bool signed_by(std::string_view cert_pem, std::string_view ca_cert_pem) {
  auto cert = read_cert(cert_pem);
  auto ca = read_cert(ca_cert_pem);
  if (!cert || !ca) return false;
  EVP_PKEY* ca_key = X509_get0_pubkey(ca->get());
  const bool ok = ca_key != nullptr && X509_verify(cert->get(), ca_key) == 1;
  openssl_error();  // a failed verify queues an error nobody asked about
  return ok;
}

}  // namespace fed::pki

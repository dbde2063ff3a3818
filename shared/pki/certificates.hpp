#pragma once
// A private certificate authority for the manager's own TLS endpoints (the pod webhook): a CA
// and the serving certificates it signs, as PEM, with ECDSA P-256 keys. The API server trusts
// the CA through the webhook configuration's caBundle; nobody else needs to.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::pki {

struct CertifiedKey {
  std::string cert_pem;
  std::string key_pem;
};

using TimePoint = std::chrono::system_clock::time_point;

// Who a certificate or a request names: the subject (O, CN) and its subjectAltNames.
struct RequestSubject {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;     // subjectAltName DNS entries
  std::vector<std::string> ip_addresses;  // subjectAltName IP entries, IPv4 or IPv6 text
};

// What a leaf certificate may be used for (extendedKeyUsage).
enum class KeyUsage { Server, Client, ServerAndClient };

// A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign) valid from `now` - 5 min
// (clock skew) to `now` + `validity`.
Result<CertifiedKey> make_ca(std::string_view common_name, std::chrono::seconds validity,
                             TimePoint now = std::chrono::system_clock::now());

// A serving certificate signed by `ca` for `dns_names` (subjectAltName; the first is also the
// common name), extendedKeyUsage serverAuth, valid from `now` - 5 min to `now` + `validity`.
// Invalid when `ca` does not parse or `dns_names` is empty.
Result<CertifiedKey> make_serving(const CertifiedKey& ca, const std::vector<std::string>& dns_names,
                                  std::chrono::seconds validity,
                                  TimePoint now = std::chrono::system_clock::now());

// A leaf certificate signed by `ca` for `subject` (CN, O, and its DNS and IP subjectAltNames),
// with `usage`, valid from `now` - 5 min to `now` + `validity`: what mTLS between the
// federation's etcd members and their clients needs (a member's certificate serves its clients
// and is the client of its peers). Invalid when `ca` does not parse, the subject has no common
// name or an IP address does not parse.
Result<CertifiedKey> make_signed(const CertifiedKey& ca, const RequestSubject& subject,
                                 KeyUsage usage, std::chrono::seconds validity,
                                 TimePoint now = std::chrono::system_clock::now());

// A certificate signing request (PKCS#10, PEM) for a new ECDSA P-256 key, and that key: what
// the API server's CertificateSigningRequest takes when the cluster's CA must sign (the virtual
// kubelet's serving certificate, which the API server checks against that CA).
struct CertificateRequest {
  std::string csr_pem;
  std::string key_pem;
};
// Invalid when the subject has no common name or an IP address does not parse.
Result<CertificateRequest> make_certificate_request(const RequestSubject& subject);

// The start and end of the first certificate's validity in `cert_pem`. Invalid when it does not
// parse.
Result<std::chrono::system_clock::time_point> not_before(std::string_view cert_pem);
Result<std::chrono::system_clock::time_point> not_after(std::string_view cert_pem);

// Whether `cert_pem` (first certificate) was signed by the key of `ca_cert_pem`.
bool signed_by(std::string_view cert_pem, std::string_view ca_cert_pem);

}  // namespace fed::pki

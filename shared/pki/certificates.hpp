#pragma once
// A private certificate authority for the manager's own TLS endpoints (the pod webhook): a CA
// and the serving certificates it signs, as PEM, with ECDSA P-256 keys. The API server trusts
// the CA through the webhook configuration's caBundle; nobody else needs to.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.hpp"

namespace fed::pki {

struct CertifiedKey {
  std::string cert_pem;
  std::string key_pem;
};

using TimePoint = std::chrono::system_clock::time_point;

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

// The end of the first certificate's validity in `cert_pem`. Invalid when it does not parse.
Result<std::chrono::system_clock::time_point> not_after(std::string_view cert_pem);

// Whether `cert_pem` (first certificate) was signed by the key of `ca_cert_pem`.
bool signed_by(std::string_view cert_pem, std::string_view ca_cert_pem);

}  // namespace fed::pki

#pragma once
// Test PKI built with OpenSSL for the loopback servers' TLS: a CA and certificates it signs.

#include <string>
#include <vector>

namespace fed::kube::testing {

struct KeyPair {
  std::string cert_pem, key_pem;
};
struct TestPki {
  KeyPair ca;
  // A server certificate for the given DNS names and IP addresses.
  KeyPair server(const std::vector<std::string>& dns, const std::vector<std::string>& ips) const;
  // A client certificate with this common name.
  KeyPair client(const std::string& common_name) const;
  static TestPki create(const std::string& ca_name = "fed-test-ca");
};

}  // namespace fed::kube::testing

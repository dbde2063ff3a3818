#pragma once
// The pod webhook's TLS material and its rotation, as values: a CA the manager generates (the
// API server trusts it through the webhook configuration's caBundle) and the serving
// certificate it signs for the webhook Service. Each is renewed once less than a third of its
// life is left; a renewed CA is published next to the previous one until that one expires, so
// the API server trusts the serving certificate of every manager replica throughout. Stored in
// the Secret kWebhookSecret (webhook_tls_store.hpp).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "shared/pki/certificates.hpp"
#include "shared/result/result.hpp"

namespace fed::webhook {

struct WebhookLifetimes {
  std::chrono::seconds ca{std::chrono::hours(24 * 365)};
  std::chrono::seconds serving{std::chrono::hours(24 * 90)};
};

struct WebhookTls {
  pki::CertifiedKey ca;
  pki::CertifiedKey serving;
  std::string ca_bundle;  // PEM: the current CA, then the previous one while it is valid

  friend bool operator==(const WebhookTls& a, const WebhookTls& b) {
    return a.ca.cert_pem == b.ca.cert_pem && a.ca.key_pem == b.ca.key_pem &&
           a.serving.cert_pem == b.serving.cert_pem && a.serving.key_pem == b.serving.key_pem &&
           a.ca_bundle == b.ca_bundle;
  }
};

// The DNS names of Service `service` in `ns` (name.ns.svc and name.ns.svc.cluster.local).
std::vector<std::string> service_dns_names(const std::string& service, const std::string& ns);

// `current` (none: first start) brought up to date at `now`: a new CA when the CA is missing,
// unreadable or in the last third of its life; a new serving certificate for `dns_names` when
// the CA changed, it is not signed by the CA, or it is in the last third of its life; an
// expired previous CA leaves the bundle. Returns `current` unchanged when nothing is due.
Result<WebhookTls> renew(const std::optional<WebhookTls>& current,
                         const std::vector<std::string>& dns_names,
                         std::chrono::system_clock::time_point now,
                         const WebhookLifetimes& lifetimes = {});

}  // namespace fed::webhook

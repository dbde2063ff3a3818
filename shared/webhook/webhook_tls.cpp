#include "shared/webhook/webhook_tls.hpp"

namespace fed::webhook {
namespace {

// Whether the certificate is unreadable or has less than a third of `lifetime` left at `now`.
bool due(const std::string& cert_pem, std::chrono::seconds lifetime,
         std::chrono::system_clock::time_point now) {
  auto end = pki::not_after(cert_pem);
  return !end || *end - now < lifetime / 3;
}

// The certificates of a PEM bundle, in order.
std::vector<std::string> split_pem(const std::string& bundle) {
  static constexpr std::string_view kEnd = "-----END CERTIFICATE-----";
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    const auto begin = bundle.find("-----BEGIN CERTIFICATE-----", from);
    if (begin == std::string::npos) break;
    const auto end = bundle.find(kEnd, begin);
    if (end == std::string::npos) break;
    out.push_back(bundle.substr(begin, end + kEnd.size() - begin) + "\n");
    from = end + kEnd.size();
  }
  return out;
}

}  // namespace

std::vector<std::string> service_dns_names(const std::string& service, const std::string& ns) {
  return {service + "." + ns + ".svc", service + "." + ns + ".svc.cluster.local"};
}

Result<WebhookTls> renew(const std::optional<WebhookTls>& current,
                         const std::vector<std::string>& dns_names,
                         std::chrono::system_clock::time_point now,
                         const WebhookLifetimes& lifetimes) {
  WebhookTls next;
  std::string previous_ca;
  if (current && !due(current->ca.cert_pem, lifetimes.ca, now)) {
    next.ca = current->ca;
    // Keep the bundle's other CAs that are still valid.
    for (const auto& cert : split_pem(current->ca_bundle)) {
      if (cert == current->ca.cert_pem) continue;
      auto end = pki::not_after(cert);
      if (end && *end > now) previous_ca += cert;
    }
  } else {
    FED_ASSIGN_OR_RETURN(next.ca, pki::make_ca("kubectl-fed pod webhook CA", lifetimes.ca, now));
    if (current) {
      auto end = pki::not_after(current->ca.cert_pem);
      if (end && *end > now) previous_ca = current->ca.cert_pem;
    }
  }
  next.ca_bundle = next.ca.cert_pem + previous_ca;
  const bool ca_changed = !current || next.ca.cert_pem != current->ca.cert_pem;
  if (!ca_changed && !due(current->serving.cert_pem, lifetimes.serving, now) &&
      pki::signed_by(current->serving.cert_pem, next.ca.cert_pem)) {
    next.serving = current->serving;
  } else {
    FED_ASSIGN_OR_RETURN(next.serving,
                         pki::make_serving(next.ca, dns_names, lifetimes.serving, now));
  }
  return next;
}

}  // namespace fed::webhook

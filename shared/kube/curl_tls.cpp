#include "shared/kube/curl_tls.hpp"

namespace fed::kube {

void set_tls_and_auth_options(CURL* h, const RestConfig& cfg,
                              const std::optional<ClientCertificate>& cert) {
  if (cfg.insecure_skip_tls_verify) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  } else if (!cfg.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(cfg.ca_pem.data()), cfg.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(h, CURLOPT_CAPATH, nullptr);  // trust only the configured CAs
  }
  if (cert && !cert->cert_pem.empty()) {
    curl_blob c{const_cast<char*>(cert->cert_pem.data()), cert->cert_pem.size(), CURL_BLOB_COPY};
    curl_blob k{const_cast<char*>(cert->key_pem.data()), cert->key_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &c);
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &k);
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
  }
  // An empty proxy_url keeps libcurl's default: the https_proxy/no_proxy environment, which is
  // what kubectl honours too.
  if (!cfg.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_PROXY, cfg.proxy_url.c_str());
  if (!cfg.username.empty()) {
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    curl_easy_setopt(h, CURLOPT_USERNAME, cfg.username.c_str());
    curl_easy_setopt(h, CURLOPT_PASSWORD, cfg.password.c_str());
  }
}

}  // namespace fed::kube

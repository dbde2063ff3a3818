#pragma once
// The virtual kubelet's TLS files: its serving certificate, signed by the cluster's CA through a
// CertificateSigningRequest (kubelet_serving_csr.hpp) for the address the virtual nodes publish,
// and the CA the API server's client certificates are checked against — the client CA the API
// server itself publishes in kube-system/extension-apiserver-authentication, as extension API
// servers read it. Each replica of the manager has its own pair (its own pod IP); nothing is
// stored in the cluster but the CSRs, which the cluster's CSR cleaner removes.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "shared/http/tls.hpp"
#include "shared/kube/dynamic_client.hpp"

namespace fed::offload {

// How long the signer gets to issue a certificate once the request is approved.
inline constexpr std::chrono::seconds kIssueTimeout{30};

class VirtualKubeletTls final {
 public:
  // Files under `dir` (created, mode 0700); the serving certificate names `ip`.
  VirtualKubeletTls(std::shared_ptr<kube::DynamicClient> host, std::string ip,
                    std::filesystem::path dir);

  // Writes the client CA when it changed, and asks for a serving certificate when there is none
  // or renewal is due (blocks up to kIssueTimeout). Unavailable (retried by the caller) when the
  // signer refuses or does not answer in time; the files in force stay.
  Status sync(std::chrono::system_clock::time_point now);

  http::TlsFiles files() const;

 private:
  Status sync_client_ca();
  Status issue();

  std::shared_ptr<kube::DynamicClient> host_;
  std::string ip_;
  std::filesystem::path dir_;
};

}  // namespace fed::offload

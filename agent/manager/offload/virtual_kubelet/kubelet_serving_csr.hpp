#pragma once
// The virtual kubelet's serving certificate, as values. The API server reaches a node's kubelet
// API (`kubectl logs`) at the node's address and checks the certificate there against the
// cluster's CA (--kubelet-certificate-authority), so the manager cannot use its own webhook CA:
// it asks the cluster for a certificate with a CertificateSigningRequest for signer
// kubernetes.io/kubelet-serving — the one a kubelet with serverTLSBootstrap uses — and approves
// it itself (manifests/manager/kubelet-serving-policy.yaml keeps that to its own requests).
// Pure.

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shared/pki/certificates.hpp"

namespace fed::offload {

inline constexpr std::string_view kKubeletServingSigner = "kubernetes.io/kubelet-serving";
// The signer signs only subjects of this shape: O=system:nodes, CN=system:node:<name>.
inline constexpr std::string_view kVirtualKubeletUser = "system:node:kubectl-fed-virtual-kubelet";
inline constexpr std::string_view kCsrGenerateName = "kubectl-fed-virtual-kubelet-";
// Asked of the signer; it may shorten it (--cluster-signing-duration).
inline constexpr std::chrono::seconds kKubeletServingValidity{std::chrono::hours(24 * 30)};

// What the CSR asks for: the subject above and `ip` (the address the virtual nodes publish).
pki::RequestSubject kubelet_serving_subject(const std::string& ip);

// The CertificateSigningRequest object for `csr_pem` (generateName kCsrGenerateName), with the
// usages the kubelet-serving signer takes for an ECDSA key.
nlohmann::json kubelet_serving_csr(std::string_view csr_pem, std::chrono::seconds validity);

// `csr` (as read) with the Approved condition added, for the /approval subresource.
nlohmann::json approved(nlohmann::json csr, std::string_view message);

// Whether `csr` was refused: a Denied or Failed condition; its message in `why`.
bool refused(const nlohmann::json& csr, std::string& why);

// Whether a certificate valid from `not_before` to `not_after` is due for renewal at `now`:
// once less than a third of its life is left (as the kubelet's certificate manager roughly
// does), or when it is not valid yet.
bool renewal_due(std::chrono::system_clock::time_point not_before,
                 std::chrono::system_clock::time_point not_after,
                 std::chrono::system_clock::time_point now);

}  // namespace fed::offload

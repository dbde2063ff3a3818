#include "agent/manager/offload/virtual_kubelet/kubelet_serving_csr.hpp"

#include "shared/util/base64.hpp"

namespace fed::offload {

using nlohmann::json;

pki::RequestSubject kubelet_serving_subject(const std::string& ip) {
  return {std::string(kVirtualKubeletUser), {"system:nodes"}, {}, {ip}};
}

json kubelet_serving_csr(std::string_view csr_pem, std::chrono::seconds validity) {
  return json{{"apiVersion", "certificates.k8s.io/v1"},
              {"kind", "CertificateSigningRequest"},
              {"metadata",
               {{"generateName", kCsrGenerateName},
                {"labels", {{"app.kubernetes.io/part-of", "kubectl-fed"}}}}},
              {"spec",
               {{"request", util::base64_encode(csr_pem)},
                {"signerName", kKubeletServingSigner},
                {"expirationSeconds", validity.count()},
                // No "key encipherment": an ECDSA key cannot encipher, and the signer accepts its
                // absence for such keys.
                {"usages", json::array({"digital signature", "server auth"})}}}};
}

json approved(json csr, std::string_view message) {
  json& conditions = csr["status"]["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  conditions.push_back({{"type", "Approved"},
                        {"status", "True"},
                        {"reason", "KubectlFedVirtualKubelet"},
                        {"message", message}});
  return csr;
}

bool refused(const json& csr, std::string& why) {
  if (!csr.contains("status")) return false;
  const json conditions = csr["status"].value("conditions", json::array());
  for (const auto& c : conditions) {
    const std::string type = c.value("type", "");
    if ((type == "Denied" || type == "Failed") && c.value("status", "True") == "True") {
      why = type + ": " + c.value("reason", "") + " " + c.value("message", "");
      return true;
    }
  }
  return false;
}

bool renewal_due(std::chrono::system_clock::time_point not_before,
                 std::chrono::system_clock::time_point not_after,
                 std::chrono::system_clock::time_point now) {
  if (now < not_before || now >= not_after) return true;
  return (not_after - now) * 3 < (not_after - not_before);
}

}  // namespace fed::offload

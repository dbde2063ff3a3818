#include "agent/manager/offload/virtual_kubelet/virtual_kubelet_tls.hpp"

#include <sys/stat.h>

#include <thread>

#include <spdlog/spdlog.h>

#include "agent/manager/offload/virtual_kubelet/kubelet_serving_csr.hpp"
#include "shared/kube/apiserver_authentication.hpp"
#include "shared/pki/certificates.hpp"
#include "shared/util/base64.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/write_file_atomic.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

const kube::ResourceRef kCsrs{
    {"certificates.k8s.io", "v1", "certificatesigningrequests"}, "", "", ""};

}  // namespace

VirtualKubeletTls::VirtualKubeletTls(std::shared_ptr<kube::DynamicClient> host, std::string ip,
                                     std::filesystem::path dir)
    : host_(std::move(host)), ip_(std::move(ip)), dir_(std::move(dir)) {}

http::TlsFiles VirtualKubeletTls::files() const {
  http::TlsFiles files;
  files.cert_file = (dir_ / "kubelet.crt").string();
  files.key_file = (dir_ / "kubelet.key").string();
  files.client_ca_file = (dir_ / "client-ca.crt").string();
  return files;
}

Status VirtualKubeletTls::sync(std::chrono::system_clock::time_point now) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return fail(ErrorCode::Internal, dir_.string() + ": " + ec.message());
  ::chmod(dir_.c_str(), 0700);
  FED_TRY(sync_client_ca());
  auto cert = util::read_file(files().cert_file);
  if (cert) {
    auto start = pki::not_before(*cert);
    auto end = pki::not_after(*cert);
    if (start && end && !renewal_due(*start, *end, now)) return ok();
  }
  return issue();
}

Status VirtualKubeletTls::sync_client_ca() {
  FED_ASSIGN_OR_RETURN(auto authentication, kube::read_apiserver_authentication(*host_));
  const std::string& ca = authentication.client_ca;
  if (ca.empty()) {
    return fail(ErrorCode::Unavailable,
                "kube-system/extension-apiserver-authentication has no client-ca-file: the API "
                "server runs without --client-ca-file, so its kubelet client cannot be verified");
  }
  const std::string path = files().client_ca_file;
  auto have = util::read_file(path);
  if (have && *have == ca) return ok();
  return util::write_file_atomic(path, ca, 0644);
}

Status VirtualKubeletTls::issue() {
  FED_ASSIGN_OR_RETURN(auto request, pki::make_certificate_request(kubelet_serving_subject(ip_)));
  auto created =
      host_->create(kCsrs, kubelet_serving_csr(request.csr_pem, kKubeletServingValidity));
  if (!created) {
    return created.error().to_error().with_context("creating the virtual kubelet's CSR");
  }
  const std::string name = (*created)["metadata"].value("name", "");
  auto approval = host_->update(
      kCsrs.named(name).sub("approval"),
      approved(*created, "the kubectl-fed manager's own virtual kubelet serving certificate"));
  if (!approval) {
    return approval.error().to_error().with_context("approving CSR " + name);
  }
  const auto deadline = std::chrono::steady_clock::now() + kIssueTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto csr = host_->get(kCsrs.named(name));
    if (!csr) return csr.error().to_error().with_context("reading CSR " + name);
    std::string why;
    if (refused(*csr, why)) {
      return fail(ErrorCode::Unavailable, "CSR " + name + " was refused: " + why);
    }
    const std::string issued =
        (*csr).value("status", json::object()).value("certificate", std::string());
    if (!issued.empty()) {
      FED_ASSIGN_OR_RETURN(auto pem, util::base64_decode(issued));
      // Key first: the server keeps the pair in force until both files match again.
      FED_TRY(util::write_file_atomic(files().key_file, request.key_pem, 0600));
      FED_TRY(util::write_file_atomic(files().cert_file, pem, 0644));
      spdlog::info("virtual kubelet: serving certificate for {} issued by the cluster (CSR {})",
                   ip_, name);
      return ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return fail(ErrorCode::Unavailable,
              "CSR " + name + " was approved but not signed within " +
                  std::to_string(kIssueTimeout.count()) +
                  "s: does kube-controller-manager run with --cluster-signing-cert-file?");
}

}  // namespace fed::offload

#pragma once
// The kubelet API of the virtual nodes, served by the manager: `kubectl logs` (and `-f`) of a
// pod offloaded to member M reads its twin's log from M's API server, through the
// federation's identity there (pods/log inside replicas only). Like a kubelet with webhook
// authentication and authorization, it accepts only clients whose certificate the API server's
// client CA signed, and asks the host whether that identity may get nodes/proxy of the pod's
// node (a SubjectAccessReview). Exec, attach and port-forward are answered with where to run
// them instead: forwarding upgraded streams is not built.
//
// One request key: the TLS files are kept (virtual_kubelet_tls.hpp) and the server started once
// they are in place; endpoint() then tells the virtual nodes what to publish.

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "agent/manager/offload/virtual_kubelet/virtual_kubelet_tls.hpp"
#include "agent/manager/offload/virtual_kubelet/virtual_node.hpp"
#include "shared/http/server.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::offload {

inline constexpr std::string_view kDefaultKubeletBindAddress = "0.0.0.0:10250";
inline constexpr std::chrono::seconds kKubeletTlsRecheck{60};

struct VirtualKubeletOptions {
  std::string bind_address{kDefaultKubeletBindAddress};
  std::string advertise_address;  // the InternalIP of the virtual nodes: this pod's IP
  std::filesystem::path cert_dir;
};

class VirtualKubelet final : public kube::Reconciler {
 public:
  VirtualKubelet(std::shared_ptr<kube::DynamicClient> host, kube::Informer& namespace_maps,
                 MemberClient member_client, VirtualKubeletOptions options);
  ~VirtualKubelet() override;

  static kube::Request request() { return {"", "virtual-kubelet"}; }
  Result<kube::Requeue> reconcile(const kube::Request& request) override;

  // Where the API server reaches this kubelet API; nullopt until it serves.
  std::optional<KubeletEndpoint> endpoint() const;
  // Ends streams in flight and stops serving.
  void stop();

 private:
  http::Response container_logs(const http::Request& request);
  http::Response not_forwarded(const http::Request& request);
  // exec, attach and port-forward: relayed to the twin through the member's API server
  // (virtual_kubelet_streams.cpp).
  http::Response stream(const http::Request& request);
  // Where host pod ns/pod runs: its virtual node, the member, and the member namespace when
  // ns is replicated there. NotFound when the pod is absent or not on a virtual node.
  struct Placement {
    std::string node, member;
    std::optional<std::string> replica;
  };
  Result<Placement> placement(const std::string& ns, const std::string& pod) const;
  // nullopt when the caller may use the kubelet API of `node`; the refusal otherwise.
  std::optional<http::Response> authorize(const http::Request& request, const std::string& node,
                                          std::string_view verb = "get");

  std::shared_ptr<kube::DynamicClient> host_;
  kube::Informer& namespace_maps_;
  MemberClient member_client_;
  VirtualKubeletOptions options_;
  VirtualKubeletTls tls_;
  std::stop_source stopping_;
  mutable std::mutex mu_;
  std::unique_ptr<http::Server> server_;  // set once, under mu_
  std::optional<KubeletEndpoint> endpoint_;
};

}  // namespace fed::offload

#pragma once
// The offloading module of `fed-agent manager` (seed 001, docs/OFFLOAD.md): virtual nodes and
// their kubelet API, NamespaceOffloading and NamespaceMap, the reflection of pods, Services and
// configuration, deployment replication and the pod webhook, added to the role's controller
// manager in the order they start.

#include <filesystem>
#include <memory>
#include <string>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "agent/manager/offload/reflection/pod_reflector.hpp"
#include "agent/manager/offload/reflection/service_reflector.hpp"
#include "agent/manager/offload/virtual_kubelet/virtual_kubelet.hpp"
#include "agent/manager/offload/webhook/pod_webhook.hpp"
#include "shared/kube/controller_manager.hpp"
#include "shared/kube/event_recorder.hpp"

namespace fed::offload {

struct OffloadOptions {
  // Where the pod webhook listens (HTTPS); empty: no webhook.
  std::string webhook_bind_address{kDefaultWebhookBindAddress};
  // Where its serving certificate and key are written (empty: a directory of this process
  // under the system's temporary directory).
  std::string webhook_cert_dir;
  webhook::WebhookCallers webhook_callers = webhook::WebhookCallers::Any;  // --webhook-caller-auth
  // The virtual nodes' kubelet API (kubectl logs): where it listens, the address the virtual
  // nodes publish for it (empty: not served), and where its certificates are written (empty: a
  // directory of this process under the system's temporary directory).
  std::string kubelet_bind_address{kDefaultKubeletBindAddress};
  std::string kubelet_advertise_address;
  std::string kubelet_cert_dir;
  // Workers of the NamespaceOffloading, NamespaceMap and DeploymentReplication controllers
  // (benchmark E2 compares 1 and 5; a NamespaceMap is one key per member, so its workers only
  // help across members).
  int workers = 2;
};

// What offloading takes from the rest of the manager.
struct OffloadDeps {
  std::string cluster_id;      // the host's
  MemberClient member_client;  // a joined member's client (membership)
  // A member's pod IP as the host sees it, and the reverse (the host's IPAM).
  MemberPodIpTranslator pod_ip_on_host;
  MemberOwnIp member_own_ip;
  kube::EventRecorder* events = nullptr;  // about the federation's objects on the host
};

// Adds every offloading controller and the virtual kubelet to `manager`.
void add_offload_controllers(kube::ControllerManager& manager, const OffloadDeps& deps,
                             const OffloadOptions& options);

// Adds the pod webhook: its serving pair, its configuration (which follows the offloaded
// namespaces) and its server, which serves once the offloadings are cached. Added before the
// controllers, whose first passes at a takeover send the API server hundreds of requests: its
// start is a few calls that would otherwise wait behind them (docs/BENCHMARKS.md).
void add_pod_webhook(kube::ControllerManager& manager, const OffloadOptions& options);

}  // namespace fed::offload

#pragma once
// ConfigMap, Secret and ServiceAccount reflection (spec 001 §1.2): every such object of an
// offloaded namespace (reflected_config.hpp says which) gets a twin of the same name in each
// member's replica, kept equal to the host's — so a twin pod mounts them and runs as them as
// the host pod would. A host
// object deleted takes its twins with it; a twin changed or deleted by hand is restored within
// kConfigRecheck.
//
// Least privilege on the host: the manager holds no cluster-wide right on these kinds. It reads
// them only in namespaces whose owner granted it — the RoleBinding
// kReflectionBinding to ClusterRole kReflectionRole that `kubectl fed offload` makes in the
// namespace with the caller's rights, and `unoffload` removes. So its watches are per
// namespace: started for each offloaded namespace where it may list all three, stopped when
// the offloading goes; where it may not, it says so (a Warning Event) and looks again later.
//
// Requests: (ns, "") syncs the watches of namespace ns; (ns, "<Kind>/<name>") reflects one
// object (ConfigMap/web-config, Secret/db, ServiceAccount/web).

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "agent/manager/offload/reflection/reflected_config.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/event_recorder.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"
#include "shared/offload/reflection_grant.hpp"

namespace fed::offload {

inline constexpr std::chrono::seconds kConfigRecheck{30};

class ConfigReflector final : public kube::Reconciler {
 public:
  // `offloadings`: the host's NamespaceOffloadings; `events`: may be null.
  ConfigReflector(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
                  kube::Informer& offloadings, kube::Informer& namespace_maps,
                  MemberClient member_client, kube::EventRecorder* events);
  ~ConfigReflector() override;

  // The controller that runs this reconciler: it watches the offloadings and NamespaceMaps, and
  // the per-namespace watches feed it. Call once, before the controller starts.
  void attach(kube::Controller& controller);
  // Stops the per-namespace watches (after the controller stopped).
  void stop();

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  using Watches = std::map<PodConfigKind, std::shared_ptr<kube::Informer>>;
  Result<kube::Requeue> sync_namespace(const std::string& ns);
  Result<kube::Requeue> reflect(const std::string& ns, PodConfigKind kind, const std::string& name);
  // Whether the manager may list all three kinds in `ns`: the reason why not in `why`.
  Result<bool> may_read(const std::string& ns, std::string& why);
  std::vector<kube::Request> objects_of_map(const nlohmann::json& namespace_map) const;

  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;
  kube::Informer& offloadings_;
  kube::Informer& namespace_maps_;
  MemberClient member_client_;
  kube::EventRecorder* events_;
  kube::Controller* controller_ = nullptr;
  mutable std::mutex mu_;
  std::map<std::string, Watches> watches_;  // by host namespace
};

}  // namespace fed::offload

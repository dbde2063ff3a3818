#pragma once
// Pod reflection (spec 001 §1.2): the manager acts as the kubelet of every virtual node. A host
// pod bound to member M's virtual node gets a twin in M's replica of its namespace
// (reflected_pod.hpp says what the twin keeps); the twin's status is written back to the host
// pod with pod IPs in the host's view of M's PodCIDR; deletion goes both ways — a host pod
// deleted deletes its twin and is then finalized here (no kubelet will), a twin deleted on the
// member is made again, a twin left behind by a host pod that is gone or was recreated under
// the same name is deleted. While the host gateway reports its tunnel with a member Lost, that
// member's host pods are not Ready (member_reachability.hpp).
//
// Requests: a NamespaceMap or the host's Peering with a member (namespace "", name = member
// id) re-syncs that member's watches (ReflectionWatches) and, when its reachability changed,
// every host pod on it; a host pod (namespace, name) is reflected.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "agent/manager/offload/reflection/reflected_pod.hpp"
#include "agent/manager/offload/reflection/reflection_watches.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"
#include "shared/kube/reconciler.hpp"

namespace fed::offload {

// The reason of a host pod bound to a virtual node whose member has no replica of its namespace.
inline constexpr std::string_view kNotReplicatedReason = "NamespaceNotOffloaded";

// The host's view of a pod IP of member `id` (nullopt: not translatable, e.g. not peered).
using MemberPodIpTranslator =
    std::function<std::optional<std::string>(const std::string& id, std::string_view ip)>;

class PodReflector final : public kube::Reconciler {
 public:
  PodReflector(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
               kube::Informer& namespace_maps, kube::Informer& host_peerings,
               MemberClient member_client, MemberPodIpTranslator translate, FreshReplicas& fresh);
  ~PodReflector() override;

  // The controller that runs this reconciler; its queue receives the watches' events. Call
  // once, before the controller starts.
  void attach(kube::Controller& controller);
  // Stops the member and host pod watches (after the controller stopped).
  void stop();

  Result<kube::Requeue> reconcile(const kube::Request& request) override;

 private:
  Result<kube::Requeue> sync_member(const std::string& id);
  // Records whether member `id` is reachable now; when that changed, queues its host pods.
  void follow_reachability(const std::string& id);
  // Why member `id` is unreachable, as last recorded; nullopt while it is reachable.
  std::optional<std::string> unreachable(const std::string& id) const;
  Result<kube::Requeue> reflect(const std::string& ns, const std::string& name);
  // Deletes `twin` unless it is already going.
  Status delete_twin(const ReflectionWatches::Twin& twin,
                     std::optional<std::int64_t> grace_seconds);
  Status write_status(const nlohmann::json& host_pod, const ReflectionWatches::Twin& twin);
  // Pending with reason kNotReplicatedReason and `message`.
  Status write_unplaced(const nlohmann::json& host_pod, const std::string& message);
  // Writes `status` to the host pod unless it has it already.
  Status replace_status(const nlohmann::json& host_pod, nlohmann::json status);

  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;
  kube::Informer& maps_;
  kube::Informer& peerings_;
  MemberClient member_client_;
  MemberPodIpTranslator translate_;
  FreshReplicas& fresh_;
  std::unique_ptr<ReflectionWatches> watches_;
  kube::Controller* controller_ = nullptr;
  mutable std::mutex mu_;
  std::map<std::string, std::string> unreachable_;  // member id -> why
};

}  // namespace fed::offload

#pragma once
// The watches the pod reflector reads from, per member: on the host, the pods bound to the
// member's virtual node (field selector spec.nodeName); on the member, the twins in each
// replica namespace (label selector origin-cluster = the host). The member's are per namespace
// because the federation's identity may list pods only inside the replicas (a RoleBinding
// there, docs/OFFLOAD.md), never cluster-wide. They follow the member's NamespaceMap: started
// for Accepted replicas, stopped for the others and when the member leaves. A replica this
// process just created (FreshReplicas) holds no twin: its watch starts with the first pod
// bound for it (watch_twins).

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/manager/offload/namespaces/fresh_replicas.hpp"
#include "shared/kube/controller.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"

namespace fed::offload {

class ReflectionWatches final {
 public:
  // Events of every watch are mapped to host pod requests (namespace, name) on `controller`.
  ReflectionWatches(std::shared_ptr<kube::DynamicClient> host, std::string host_cluster_id,
                    kube::Controller& controller, FreshReplicas& fresh);
  ~ReflectionWatches();
  ReflectionWatches(const ReflectionWatches&) = delete;
  ReflectionWatches& operator=(const ReflectionWatches&) = delete;

  // Member `id` replicates the host namespaces in `replicas` (host namespace -> replica) through
  // `client`: starts what is missing, stops what is no longer wanted.
  void sync(const std::string& id, const std::shared_ptr<kube::DynamicClient>& client,
            const std::map<std::string, std::string>& replicas);
  // Starts watching the twins of host namespace `ns` on member `id` if it is a fresh replica
  // not watched yet; to be called before a twin is made there.
  void watch_twins(const std::string& id, const std::string& ns);
  // Stops every watch of member `id`.
  void forget(const std::string& id);
  void stop();

  // What a reconcile reads: the host pod (ns, name), on any virtual node, and its twins.
  struct HostPod {
    std::string member;
    kube::ObjectPtr pod;
  };
  std::optional<HostPod> host_pod(const std::string& ns, const std::string& name) const;
  struct Twin {
    std::string member;
    std::string replica;  // the member namespace
    kube::ObjectPtr pod;  // null when there is none
    std::shared_ptr<kube::DynamicClient> client;
  };
  // Member `id`'s view of host pod (ns, name); nullopt when `id` does not replicate `ns`.
  std::optional<Twin> twin(const std::string& id, const std::string& ns,
                           const std::string& name) const;
  // The host pods (namespace, name) bound to member `id`'s virtual node.
  std::vector<std::pair<std::string, std::string>> host_pods_of(const std::string& id) const;
  // Every member replicating `ns`.
  std::vector<std::string> members_replicating(const std::string& ns) const;

 private:
  struct Member {
    std::shared_ptr<kube::DynamicClient> client;
    std::shared_ptr<kube::Informer> host_pods;
    std::map<std::string, std::string> replicas;                   // host ns -> member ns
    std::map<std::string, std::shared_ptr<kube::Informer>> twins;  // by member ns
    std::set<std::string> unwatched;  // fresh replicas: no twin there, no watch yet
  };
  void start_twins(const std::string& id, Member& m, const std::string& replica);
  std::shared_ptr<kube::Informer> start_informer(std::shared_ptr<kube::DynamicClient> client,
                                                 kube::ResourceRef collection,
                                                 kube::InformerOptions options);

  std::shared_ptr<kube::DynamicClient> host_;
  std::string host_id_;
  kube::Controller& controller_;
  FreshReplicas& fresh_;
  mutable std::mutex mu_;
  std::map<std::string, Member> members_;
};

}  // namespace fed::offload

#include "agent/manager/offload/reflection/reflection_watches.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "agent/manager/offload/virtual_kubelet/virtual_node.hpp"

namespace fed::offload {
namespace {

const kube::ResourceRef kAllPods{{"", "v1", "pods"}, "", "", ""};

// A twin's event concerns the host pod of the same name in its origin namespace.
std::vector<kube::Request> host_request_of_twin(const nlohmann::json& twin) {
  const auto labels = twin["metadata"].value("labels", nlohmann::json::object());
  const std::string ns = labels.value(std::string(kOriginNamespaceLabel), "");
  if (ns.empty()) return {};
  return {{ns, twin["metadata"].value("name", "")}};
}

std::vector<kube::Request> host_request(const nlohmann::json& pod) {
  return {{pod["metadata"].value("namespace", ""), pod["metadata"].value("name", "")}};
}

}  // namespace

ReflectionWatches::ReflectionWatches(std::shared_ptr<kube::DynamicClient> host,
                                     std::string host_cluster_id, kube::Controller& controller,
                                     FreshReplicas& fresh)
    : host_(std::move(host)),
      host_id_(std::move(host_cluster_id)),
      controller_(controller),
      fresh_(fresh) {}

ReflectionWatches::~ReflectionWatches() {
  stop();
}

std::shared_ptr<kube::Informer> ReflectionWatches::start_informer(
    std::shared_ptr<kube::DynamicClient> client, kube::ResourceRef collection,
    kube::InformerOptions options) {
  const bool twins = collection.ns != "";
  auto informer = std::make_shared<kube::Informer>(std::move(client), std::move(collection),
                                                   std::move(options));
  informer->add_handlers(
      controller_.handlers(twins ? kube::EventMapper(host_request_of_twin) : host_request));
  informer->start();
  return informer;
}

void ReflectionWatches::sync(const std::string& id,
                             const std::shared_ptr<kube::DynamicClient>& client,
                             const std::map<std::string, std::string>& replicas) {
  std::vector<std::shared_ptr<kube::Informer>> stopped;  // joined outside the lock
  {
    std::lock_guard lock(mu_);
    Member& m = members_[id];
    if (m.client != client) {  // a new connection (rejoined): every watch starts over
      if (m.host_pods) stopped.push_back(std::move(m.host_pods));
      for (auto& [_, informer] : m.twins) stopped.push_back(std::move(informer));
      m = Member{client, nullptr, {}, {}, {}};
    }
    if (!m.host_pods) {
      kube::InformerOptions options;
      options.field_selector = "spec.nodeName=" + virtual_node_name(id);
      m.host_pods = start_informer(host_, kAllPods, std::move(options));
    }
    std::set<std::string> wanted;
    for (const auto& [_, replica] : replicas) wanted.insert(replica);
    for (auto it = m.twins.begin(); it != m.twins.end();) {
      if (wanted.count(it->first) != 0) {
        ++it;
        continue;
      }
      stopped.push_back(std::move(it->second));
      it = m.twins.erase(it);
    }
    std::erase_if(m.unwatched, [&](const std::string& r) { return wanted.count(r) == 0; });
    for (const auto& replica : wanted) {
      if (m.twins.count(replica) != 0) continue;
      if (fresh_.contains(id, replica)) {
        m.unwatched.insert(replica);
        continue;
      }
      m.unwatched.erase(replica);
      start_twins(id, m, replica);
    }
    m.replicas = replicas;
  }
  for (auto& informer : stopped) informer->stop();
}

void ReflectionWatches::start_twins(const std::string& id, Member& m, const std::string& replica) {
  kube::InformerOptions options;
  options.label_selector = std::string(kOriginClusterLabel) + "=" + host_id_;
  m.twins[replica] = start_informer(m.client, kAllPods.in_namespace(replica), std::move(options));
  spdlog::info("pod reflection: watching twins in {} on {}", replica, id);
}

void ReflectionWatches::watch_twins(const std::string& id, const std::string& ns) {
  std::lock_guard lock(mu_);
  auto m = members_.find(id);
  if (m == members_.end()) return;
  auto replica = m->second.replicas.find(ns);
  if (replica == m->second.replicas.end()) return;
  // From here on a twin may be made there: the replica is no longer fresh (even one watched
  // already, which the NamespaceMap controller may have made again after a deletion).
  fresh_.forget(id, replica->second);
  if (m->second.unwatched.erase(replica->second) == 0) return;
  start_twins(id, m->second, replica->second);
}

void ReflectionWatches::forget(const std::string& id) {
  std::vector<std::shared_ptr<kube::Informer>> stopped;
  {
    std::lock_guard lock(mu_);
    auto it = members_.find(id);
    if (it == members_.end()) return;
    if (it->second.host_pods) stopped.push_back(std::move(it->second.host_pods));
    for (auto& [_, informer] : it->second.twins) stopped.push_back(std::move(informer));
    members_.erase(it);
  }
  for (auto& informer : stopped) informer->stop();
}

void ReflectionWatches::stop() {
  std::vector<std::string> ids;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, _] : members_) ids.push_back(id);
  }
  for (const auto& id : ids) forget(id);
}

std::optional<ReflectionWatches::HostPod> ReflectionWatches::host_pod(
    const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  for (const auto& [id, m] : members_) {
    if (!m.host_pods) continue;
    if (auto pod = m.host_pods->store().get(ns, name)) return HostPod{id, pod};
  }
  return std::nullopt;
}

std::optional<ReflectionWatches::Twin> ReflectionWatches::twin(const std::string& id,
                                                               const std::string& ns,
                                                               const std::string& name) const {
  std::lock_guard lock(mu_);
  auto m = members_.find(id);
  if (m == members_.end()) return std::nullopt;
  auto replica = m->second.replicas.find(ns);
  if (replica == m->second.replicas.end()) return std::nullopt;
  if (m->second.unwatched.count(replica->second) != 0) {
    return Twin{id, replica->second, nullptr, m->second.client};  // fresh: none there
  }
  auto informer = m->second.twins.find(replica->second);
  if (informer == m->second.twins.end()) return std::nullopt;
  return Twin{id, replica->second, informer->second->store().get(replica->second, name),
              m->second.client};
}

std::vector<std::pair<std::string, std::string>> ReflectionWatches::host_pods_of(
    const std::string& id) const {
  std::shared_ptr<kube::Informer> pods;
  {
    std::lock_guard lock(mu_);
    const auto it = members_.find(id);
    if (it == members_.end() || !it->second.host_pods) return {};
    pods = it->second.host_pods;
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& pod : pods->store().list()) {
    const auto& meta = (*pod)["metadata"];
    out.emplace_back(meta.value("namespace", ""), meta.value("name", ""));
  }
  return out;
}

std::vector<std::string> ReflectionWatches::members_replicating(const std::string& ns) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> ids;
  for (const auto& [id, m] : members_) {
    if (m.replicas.count(ns) != 0) ids.push_back(id);
  }
  return ids;
}

}  // namespace fed::offload

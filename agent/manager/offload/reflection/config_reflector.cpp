#include "agent/manager/offload/reflection/config_reflector.hpp"

#include <spdlog/spdlog.h>

#include "agent/manager/offload/namespaces/accepted_replicas.hpp"
#include "agent/manager/offload/reflection/twin_writes.hpp"
#include "shared/fedapi/group.hpp"
#include "shared/fedapi/offloading.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

kube::ResourceRef collection(PodConfigKind kind, const std::string& ns) {
  return kube::ResourceRef{{"", "v1", std::string(resource_of(kind))}, ns, "", ""};
}

// "ConfigMap/<name>", "Secret/<name>", "ServiceAccount/<name>": the request key of one object.
std::string key_of(PodConfigKind kind, const std::string& name) {
  return std::string(kind_name(kind)) + "/" + name;
}

kube::EventMapper mapper_of(PodConfigKind kind) {
  return [kind](const json& object) {
    const json& metadata = object["metadata"];
    return std::vector<kube::Request>{
        {metadata.value("namespace", ""), key_of(kind, metadata.value("name", ""))}};
  };
}

}  // namespace

ConfigReflector::ConfigReflector(std::shared_ptr<kube::DynamicClient> host,
                                 std::string host_cluster_id, kube::Informer& offloadings,
                                 kube::Informer& namespace_maps, MemberClient member_client,
                                 kube::EventRecorder* events)
    : host_(std::move(host)),
      host_id_(std::move(host_cluster_id)),
      offloadings_(offloadings),
      namespace_maps_(namespace_maps),
      member_client_(std::move(member_client)),
      events_(events) {}

ConfigReflector::~ConfigReflector() {
  stop();
}

void ConfigReflector::attach(kube::Controller& controller) {
  controller_ = &controller;
  controller.watch(offloadings_, [](const json& offloading) {
    return std::vector<kube::Request>{{offloading["metadata"].value("namespace", ""), ""}};
  });
  controller.watch(namespace_maps_, [this](const json& nm) { return objects_of_map(nm); });
}

void ConfigReflector::stop() {
  std::map<std::string, Watches> stopped;
  {
    std::lock_guard lock(mu_);
    stopped.swap(watches_);
  }
  for (auto& [_, w] : stopped) {
    for (auto& [kind, informer] : w) informer->stop();
  }
}

std::vector<kube::Request> ConfigReflector::objects_of_map(const json& namespace_map) const {
  std::vector<kube::Request> out;
  const json desired =
      namespace_map.value("spec", json::object()).value("desiredMapping", json::object());
  std::lock_guard lock(mu_);
  for (const auto& [ns, _] : desired.items()) {
    const auto w = watches_.find(ns);
    if (w == watches_.end()) continue;
    for (const auto& [kind, informer] : w->second) {
      for (const auto& object : informer->store().list(ns)) {
        out.push_back({ns, key_of(kind, (*object)["metadata"].value("name", ""))});
      }
    }
  }
  return out;
}

Result<kube::Requeue> ConfigReflector::reconcile(const kube::Request& request) {
  if (request.name.empty()) return sync_namespace(request.ns);
  const auto slash = request.name.find('/');
  const std::string prefix = request.name.substr(0, slash);
  for (const auto kind : kPodConfigKinds) {
    if (prefix == kind_name(kind)) return reflect(request.ns, kind, request.name.substr(slash + 1));
  }
  return fail(ErrorCode::Invalid, "config reflection: unknown request " + request.name);
}

Result<bool> ConfigReflector::may_read(const std::string& ns, std::string& why) {
  kube::ListOptions probe;
  probe.limit = 1;
  for (const auto kind : kPodConfigKinds) {
    auto listed = host_->list(collection(kind, ns), probe);
    if (listed) continue;
    if (listed.error().http_status() != 403) return listed.error().to_error();
    why = "the manager may not read " + std::string(resource_of(kind)) + " in namespace " + ns +
          ", so they are not reflected: run `kubectl fed offload namespace " + ns +
          "` (it binds ClusterRole " + std::string(kReflectionRole) +
          " there) or create that RoleBinding";
    return false;
  }
  return true;
}

Result<kube::Requeue> ConfigReflector::sync_namespace(const std::string& ns) {
  const auto offloading =
      offloadings_.store().get(ns, std::string(fedapi::kNamespaceOffloadingName));
  {
    std::lock_guard lock(mu_);
    const bool watching = watches_.count(ns) != 0;
    if (offloading && watching) return kube::Requeue{};
    if (!offloading && !watching) return kube::Requeue{};
  }
  if (!offloading) {  // unoffloaded: the replicas go, and their twins with them
    Watches stopped;
    {
      std::lock_guard lock(mu_);
      stopped = std::move(watches_[ns]);
      watches_.erase(ns);
    }
    for (auto& [kind, informer] : stopped) informer->stop();
    return kube::Requeue{};
  }
  std::string why;
  FED_ASSIGN_OR_RETURN(const bool allowed, may_read(ns, why));
  if (!allowed) {
    spdlog::warn("config reflection: {}", why);
    if (events_ != nullptr) {
      events_->record(
          {std::string(fedapi::kApiVersion), "NamespaceOffloading", ns,
           (*offloading)["metadata"].value("name", ""), (*offloading)["metadata"].value("uid", "")},
          kube::EventType::Warning, "ReflectionNotGranted", why);
    }
    return kube::Requeue{std::chrono::minutes(1)};
  }
  Watches w;
  for (const auto kind : kPodConfigKinds) {
    auto informer = std::make_shared<kube::Informer>(host_, collection(kind, ns));
    informer->add_handlers(controller_->handlers(mapper_of(kind)));
    informer->start();
    w[kind] = std::move(informer);
  }
  std::lock_guard lock(mu_);
  watches_[ns] = std::move(w);
  spdlog::info(
      "config reflection: watching the ConfigMaps, Secrets and ServiceAccounts of namespace {}",
      ns);
  return kube::Requeue{};
}

Result<kube::Requeue> ConfigReflector::reflect(const std::string& ns, PodConfigKind kind,
                                               const std::string& name) {
  kube::ObjectPtr object;
  {
    std::lock_guard lock(mu_);
    const auto w = watches_.find(ns);
    if (w == watches_.end()) return kube::Requeue{};  // not offloaded (any more)
    object = w->second.at(kind)->store().get(ns, name);
  }
  const bool wanted = object && reflected_config(*object, kind);
  bool missing = false;
  for (const auto& r : replicas_of(namespace_maps_, member_client_, ns, missing)) {
    const std::string what =
        std::string(kind_name(kind)) + " " + r.ns + "/" + name + " on " + r.member;
    if (!wanted) {
      FED_ASSIGN_OR_RETURN(const bool removed,
                           remove_twin(*r.client, collection(kind, r.ns).named(name), host_id_));
      if (removed) spdlog::info("config reflection: removed {}", what);
      continue;
    }
    FED_TRY(ensure_twin(*r.client, twin_config(*object, kind, {host_id_, ns, r.ns}), host_id_, what,
                        kPodConfigFields));
  }
  if (!wanted && !missing) return kube::Requeue{};
  return kube::Requeue{kConfigRecheck};
}

}  // namespace fed::offload

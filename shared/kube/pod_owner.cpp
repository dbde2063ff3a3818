#include "shared/kube/pod_owner.hpp"

#include <map>

#include <nlohmann/json.hpp>

namespace fed::kube {

using nlohmann::json;

std::optional<PodOwner> controller_of(const json& pod) {
  const json meta = pod.value("metadata", json::object());
  for (const auto& o : meta.value("ownerReferences", json::array())) {
    if (o.value("controller", false)) {
      return PodOwner{o.value("kind", ""), meta.value("namespace", ""), o.value("name", "")};
    }
  }
  return std::nullopt;
}

Result<std::optional<std::string>> owner_short_of_ready(DynamicClient& client,
                                                        const PodOwner& owner) {
  static const std::map<std::string, GroupVersionResource> kControllers{
      {"ReplicaSet", {"apps", "v1", "replicasets"}},
      {"StatefulSet", {"apps", "v1", "statefulsets"}}};
  const auto gvr = kControllers.find(owner.kind);
  if (gvr == kControllers.end()) return std::optional<std::string>{};
  auto got = client.get(ResourceRef{gvr->second, owner.ns, owner.name, ""});
  if (!got) {
    if (got.error().is_not_found()) return std::optional<std::string>{};
    return got.error().to_error().with_context("reading " + owner.kind + " " + owner.ns + "/" +
                                               owner.name);
  }
  const auto want = (*got)["spec"].value("replicas", 1);
  const auto ready = (*got).value("status", json::object()).value("readyReplicas", 0);
  if (ready >= want) return std::optional<std::string>{};
  return std::optional<std::string>{owner.kind + " " + owner.ns + "/" + owner.name + " (" +
                                    std::to_string(ready) + "/" + std::to_string(want) + " ready)"};
}

}  // namespace fed::kube

#include "agent/manager/offload/reflection/reflected_config.hpp"

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"

namespace fed::offload {

using nlohmann::json;

std::string_view resource_of(PodConfigKind kind) {
  switch (kind) {
    case PodConfigKind::ConfigMap:
      return "configmaps";
    case PodConfigKind::Secret:
      return "secrets";
    case PodConfigKind::ServiceAccount:
      break;
  }
  return "serviceaccounts";
}

std::string_view kind_name(PodConfigKind kind) {
  switch (kind) {
    case PodConfigKind::ConfigMap:
      return "ConfigMap";
    case PodConfigKind::Secret:
      return "Secret";
    case PodConfigKind::ServiceAccount:
      break;
  }
  return "ServiceAccount";
}

bool reflected_config(const json& object, PodConfigKind kind) {
  const json& metadata = object.value("metadata", json::object());
  if (metadata.contains("deletionTimestamp")) return false;
  const std::string name = metadata.value("name", "");
  switch (kind) {
    case PodConfigKind::ConfigMap:
      return name != "kube-root-ca.crt";
    case PodConfigKind::Secret:
      return object.value("type", "") != "kubernetes.io/service-account-token";
    case PodConfigKind::ServiceAccount:
      break;
  }
  return name != "default";
}

json twin_config(const json& object, PodConfigKind kind, const TwinTarget& target) {
  const json& metadata = object.value("metadata", json::object());
  json labels = metadata.value("labels", json::object());
  labels.update(origin_labels(target.host_cluster_id, target.host_namespace));
  json annotations = metadata.value("annotations", json::object());
  annotations.erase("kubectl.kubernetes.io/last-applied-configuration");
  json twin{{"apiVersion", "v1"},
            {"kind", kind_name(kind)},
            {"metadata",
             {{"name", metadata.value("name", "")},
              {"namespace", target.remote_namespace},
              {"labels", labels}}}};
  if (!annotations.empty()) twin["metadata"]["annotations"] = annotations;
  for (const auto field : kPodConfigFields) {
    const std::string key(field);
    if (object.contains(key)) twin[key] = object[key];
  }
  return twin;
}

}  // namespace fed::offload

#include "offload/reflected_config.hpp"

#include "offload/namespace_map_reconciler.hpp"

namespace fed::offload {

using nlohmann::json;

std::string_view resource_of(ConfigKind kind) {
  return kind == ConfigKind::ConfigMap ? "configmaps" : "secrets";
}

bool reflected_config(const json& object, ConfigKind kind) {
  const json& metadata = object.value("metadata", json::object());
  if (metadata.contains("deletionTimestamp")) return false;
  if (kind == ConfigKind::ConfigMap) return metadata.value("name", "") != "kube-root-ca.crt";
  return object.value("type", "") != "kubernetes.io/service-account-token";
}

json twin_config(const json& object, ConfigKind kind, const TwinTarget& target) {
  const json& metadata = object.value("metadata", json::object());
  json labels = metadata.value("labels", json::object());
  labels.update(origin_labels(target.host_cluster_id, target.host_namespace));
  json annotations = metadata.value("annotations", json::object());
  annotations.erase("kubectl.kubernetes.io/last-applied-configuration");
  json twin{{"apiVersion", "v1"},
            {"kind", kind == ConfigKind::ConfigMap ? "ConfigMap" : "Secret"},
            {"metadata",
             {{"name", metadata.value("name", "")},
              {"namespace", target.remote_namespace},
              {"labels", labels}}}};
  if (!annotations.empty()) twin["metadata"]["annotations"] = annotations;
  for (const char* field : {"data", "binaryData", "type", "immutable"}) {
    if (object.contains(field)) twin[field] = object[field];
  }
  return twin;
}

}  // namespace fed::offload

#include "agent/manager/offload/reflection/reflected_pod.hpp"

#include "agent/manager/offload/namespaces/namespace_map_reconciler.hpp"
#include "agent/manager/offload/webhook/pod_affinity.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;

constexpr std::string_view kTokenVolumePrefix = "kube-api-access-";

bool is_host_token_volume(const json& volume) {
  return volume.value("name", "").rfind(kTokenVolumePrefix, 0) == 0 && volume.contains("projected");
}

// Containers without the host token's mounts.
void drop_token_mounts(json& containers) {
  if (!containers.is_array()) return;
  for (auto& c : containers) {
    if (!c.contains("volumeMounts")) continue;
    json kept = json::array();
    for (const auto& m : c["volumeMounts"]) {
      if (m.value("name", "").rfind(kTokenVolumePrefix, 0) != 0) kept.push_back(m);
    }
    if (kept.empty()) {
      c.erase("volumeMounts");
    } else {
      c["volumeMounts"] = std::move(kept);
    }
  }
}

}  // namespace

json twin_pod(const json& host_pod, const TwinTarget& target) {
  const json& meta = host_pod.value("metadata", json::object());
  json labels = meta.value("labels", json::object());
  labels[std::string(kOriginClusterLabel)] = target.host_cluster_id;
  labels[std::string(kOriginNamespaceLabel)] = target.host_namespace;
  json annotations = meta.value("annotations", json::object());
  annotations[std::string(kOriginUidAnnotation)] = meta.value("uid", "");

  json spec = host_pod.value("spec", json::object());
  for (const char* field : {"nodeName", "nodeSelector", "priority", "priorityClassName",
                            "preemptionPolicy", "schedulerName", "serviceAccount"}) {
    spec.erase(field);
  }
  // A ServiceAccount of its own is reflected (config_reflector.hpp): the twin runs as the
  // member's twin of it. Every namespace has its own default.
  if (spec.value("serviceAccountName", "default") == "default") spec.erase("serviceAccountName");
  if (spec.contains("affinity")) {
    spec["affinity"].erase("nodeAffinity");
    if (spec["affinity"].empty()) spec.erase("affinity");
  }
  if (spec.contains("tolerations")) {
    const std::string taint_key = virtual_node_toleration().value("key", "");
    json kept = json::array();
    for (const auto& t : spec["tolerations"]) {
      if (t.value("key", "") != taint_key) kept.push_back(t);
    }
    spec["tolerations"] = std::move(kept);
  }
  if (spec.contains("volumes")) {
    json kept = json::array();
    for (const auto& v : spec["volumes"]) {
      if (!is_host_token_volume(v)) kept.push_back(v);
    }
    spec["volumes"] = std::move(kept);
  }
  drop_token_mounts(spec["containers"]);
  if (spec.contains("initContainers")) drop_token_mounts(spec["initContainers"]);

  json pod{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata",
            {{"name", meta.value("name", "")},
             {"namespace", target.remote_namespace},
             {"labels", std::move(labels)},
             {"annotations", std::move(annotations)}}},
           {"spec", std::move(spec)}};
  return pod;
}

std::string twin_origin_uid(const json& twin) {
  const json& meta = twin.value("metadata", json::object());
  return meta.value("annotations", json::object()).value(std::string(kOriginUidAnnotation), "");
}

json host_pod_status(const json& twin, const json& host_status, const PodIpTranslator& translate) {
  json status = json::object();
  // The host's own QoS class stays: it is immutable once set, and the member's LimitRange may
  // have given the twin requests the host pod does not have (docs/OFFLOAD.md, tenancy).
  for (const char* field : {"nominatedNodeName", "qosClass"}) {
    if (host_status.is_object() && host_status.contains(field)) status[field] = host_status[field];
  }
  const json remote = twin.value("status", json::object());
  for (const char* field :
       {"phase", "conditions", "message", "reason", "startTime", "containerStatuses",
        "initContainerStatuses", "ephemeralContainerStatuses"}) {
    if (remote.contains(field)) status[field] = remote[field];
  }
  if (!status.contains("phase")) status["phase"] = "Pending";
  json ips = json::array();
  for (const auto& entry : remote.value("podIPs", json::array())) {
    if (auto ip = translate(entry.value("ip", ""))) ips.push_back({{"ip", *ip}});
  }
  if (ips.empty() && remote.contains("podIP")) {
    if (auto ip = translate(remote.value("podIP", ""))) ips.push_back({{"ip", *ip}});
  }
  if (!ips.empty()) {
    status["podIP"] = ips[0]["ip"];
    status["podIPs"] = std::move(ips);
  }
  return status;
}

}  // namespace fed::offload

#include "agent/manager/offload/reflection/reflected_pod.hpp"

#include <doctest/doctest.h>

#include "agent/manager/offload/webhook/pod_affinity.hpp"

using fed::offload::host_pod_status;
using fed::offload::twin_origin_uid;
using fed::offload::twin_pod;
using fed::offload::TwinTarget;
using nlohmann::json;

namespace {

// A pod as the host's API server stores it once a Deployment made it and the scheduler bound it
// to a virtual node.
json host_pod() {
  json pod = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-5d8f-x2", "namespace": "shop", "uid": "u-1",
                 "resourceVersion": "812", "labels": {"app": "web"},
                 "annotations": {"note": "kept"},
                 "ownerReferences": [{"kind": "ReplicaSet", "name": "web-5d8f", "uid": "rs"}]},
    "spec": {
      "nodeName": "kubectl-fed-c2", "nodeSelector": {"kubectl-fed.io/type": "virtual-node"},
      "priority": 0, "priorityClassName": "default", "schedulerName": "default-scheduler",
      "serviceAccountName": "default", "serviceAccount": "default", "restartPolicy": "Always",
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}},
                   "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": []}},
      "volumes": [{"name": "kube-api-access-abcde", "projected": {"sources": []}},
                  {"name": "data", "emptyDir": {}}],
      "containers": [{"name": "app", "image": "fed.local/fed-agent:dev",
                      "volumeMounts": [
                        {"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets"},
                        {"name": "data", "mountPath": "/data"}]},
                     {"name": "side", "image": "fed.local/fed-agent:dev",
                      "volumeMounts": [
                        {"name": "kube-api-access-abcde", "mountPath": "/var/run/secrets"}]}]
    },
    "status": {"phase": "Pending", "nominatedNodeName": "kubectl-fed-c2",
               "qosClass": "BestEffort"}})");
  pod["spec"]["tolerations"] = json::array(
      {{{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"}, {"effect", "NoExecute"}},
       fed::offload::virtual_node_toleration()});
  return pod;
}

const TwinTarget kTarget{"c1", "shop", "shop-c1"};

}  // namespace

TEST_CASE("the twin keeps the workload and drops what names the host") {
  const json twin = twin_pod(host_pod(), kTarget);
  CHECK(twin["metadata"]["name"] == "web-5d8f-x2");
  CHECK(twin["metadata"]["namespace"] == "shop-c1");
  CHECK(twin["metadata"]["labels"]["app"] == "web");
  CHECK(twin["metadata"]["labels"]["kubectl-fed.io/origin-cluster"] == "c1");
  CHECK(twin["metadata"]["labels"]["kubectl-fed.io/origin-namespace"] == "shop");
  CHECK(twin["metadata"]["annotations"]["note"] == "kept");
  CHECK(twin_origin_uid(twin) == "u-1");
  CHECK_FALSE(twin["metadata"].contains("ownerReferences"));
  CHECK_FALSE(twin["metadata"].contains("resourceVersion"));
  CHECK_FALSE(twin["metadata"].contains("uid"));
  CHECK_FALSE(twin.contains("status"));

  const json& spec = twin["spec"];
  for (const char* gone : {"nodeName", "nodeSelector", "priority", "priorityClassName",
                           "schedulerName", "serviceAccountName", "serviceAccount"}) {
    CHECK_MESSAGE(!spec.contains(gone), gone);
  }
  CHECK(spec["restartPolicy"] == "Always");
  CHECK_FALSE(spec["affinity"].contains("nodeAffinity"));
  CHECK(spec["affinity"].contains("podAntiAffinity"));
  REQUIRE(spec["tolerations"].size() == 1);
  CHECK(spec["tolerations"][0]["key"] == "node.kubernetes.io/not-ready");
  REQUIRE(spec["volumes"].size() == 1);
  CHECK(spec["volumes"][0]["name"] == "data");
  REQUIRE(spec["containers"][0]["volumeMounts"].size() == 1);
  CHECK(spec["containers"][0]["volumeMounts"][0]["name"] == "data");
  CHECK_FALSE(spec["containers"][1].contains("volumeMounts"));
}

TEST_CASE("a twin runs as the reflected twin of its own ServiceAccount, or the member's default") {
  json pod = host_pod();
  pod["spec"]["serviceAccountName"] = "web";
  pod["spec"]["serviceAccount"] = "web";
  const auto twin = twin_pod(pod, kTarget);
  CHECK(twin["spec"]["serviceAccountName"] == "web");
  CHECK_FALSE(twin["spec"].contains("serviceAccount"));  // deprecated alias: the API fills it
}

TEST_CASE("an affinity with only node rules goes entirely") {
  json pod = host_pod();
  pod["spec"]["affinity"].erase("podAntiAffinity");
  CHECK_FALSE(twin_pod(pod, kTarget)["spec"].contains("affinity"));
}

TEST_CASE("a pod without our annotation is no twin") {
  CHECK(twin_origin_uid(json::parse(R"({"metadata": {"name": "x"}})")) == "");
}

TEST_CASE("the host status mirrors the twin's, pod IPs in the host's view") {
  json twin = twin_pod(host_pod(), kTarget);
  twin["status"] = json::parse(R"({
    "phase": "Running", "hostIP": "172.31.2.11", "podIP": "10.244.1.7",
    "podIPs": [{"ip": "10.244.1.7"}], "startTime": "2026-11-25T04:00:00Z", "qosClass": "Burstable",
    "conditions": [{"type": "Ready", "status": "True"}],
    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                           "state": {"running": {"startedAt": "2026-11-25T04:00:01Z"}}}]})");
  const auto remap = [](std::string_view ip) -> std::optional<std::string> {
    if (ip == "10.244.1.7") return "10.99.1.7";
    return std::nullopt;
  };
  const json status = host_pod_status(twin, host_pod()["status"], remap);
  CHECK(status["phase"] == "Running");
  CHECK(status["podIP"] == "10.99.1.7");
  CHECK(status["podIPs"] == json::array({{{"ip", "10.99.1.7"}}}));
  CHECK_FALSE(status.contains("hostIP"));
  CHECK(status["startTime"] == "2026-11-25T04:00:00Z");
  // The host's QoS class (immutable), not the twin's: the member's LimitRange gave it requests.
  CHECK(status["qosClass"] == "BestEffort");
  CHECK(status["conditions"][0]["type"] == "Ready");
  CHECK(status["containerStatuses"][0]["state"].contains("running"));
  CHECK(status["nominatedNodeName"] == "kubectl-fed-c2");
}

TEST_CASE("a twin not yet scheduled gives a Pending host pod without IPs") {
  const json status =
      host_pod_status(twin_pod(host_pod(), kTarget), json::object(),
                      [](std::string_view) -> std::optional<std::string> { return "never"; });
  CHECK(status["phase"] == "Pending");
  CHECK_FALSE(status.contains("podIP"));
  CHECK_FALSE(status.contains("nominatedNodeName"));
}

TEST_CASE("an address the host cannot translate is left out, not passed through") {
  json twin = twin_pod(host_pod(), kTarget);
  twin["status"] = {{"phase", "Running"}, {"podIP", "192.0.2.1"}};
  const json status = host_pod_status(
      twin, json::object(), [](std::string_view) -> std::optional<std::string> { return {}; });
  CHECK_FALSE(status.contains("podIP"));
  CHECK_FALSE(status.contains("podIPs"));
}

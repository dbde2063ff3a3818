#include <doctest/doctest.h>

#include "agent/manager/offload/virtual_kubelet/virtual_node.hpp"

namespace fed::offload {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const auto kNow = std::chrono::system_clock::time_point{} + 1795000000s + 123456us;
const std::string kNowText = "2026-11-18T11:06:40Z";

fedapi::FederatedClusterSpec member() {
  fedapi::FederatedClusterSpec spec;
  spec.cluster_id = "c2";
  spec.api_endpoint = "https://172.31.0.102:6443";
  spec.cluster_labels = {{"region", "eu-west"}, {"kubectl-fed.io/type", "spoofed"}};
  spec.offered_cpu = "4";
  spec.offered_memory = "8Gi";
  return spec;
}

fedapi::FederatedClusterStatus status(std::string network, std::string ready) {
  fedapi::FederatedClusterStatus s;
  s.conditions.push_back({"NetworkReady", network, "Exchanged", "", "", 1});
  s.conditions.push_back({"TunnelReady", ready, "TunnelPending", "", "", 1});
  s.conditions.push_back({"Ready", ready, ready == "True" ? "Peered" : "TunnelPending",
                          ready == "True" ? "" : "waiting for both gateways", "", 1});
  return s;
}

const json* node_condition(const json& node, std::string_view type) {
  for (const auto& c : node["status"]["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("readiness: Ready only with peering and network ready, never while leaving") {
  CHECK(readiness(status("True", "True"), Leaving::No).ready);
  auto tunnel = readiness(status("True", "False"), Leaving::No);
  CHECK_FALSE(tunnel.ready);
  CHECK(tunnel.reason == "TunnelPending");
  CHECK(tunnel.message == "FederatedCluster Ready is False: waiting for both gateways");
  CHECK_FALSE(readiness(status("False", "True"), Leaving::No).ready);
  auto fresh = readiness(fedapi::FederatedClusterStatus{}, Leaving::No);
  CHECK_FALSE(fresh.ready);
  CHECK(fresh.reason == "MemberNotReported");
  auto leaving = readiness(status("True", "True"), Leaving::Yes);
  CHECK_FALSE(leaving.ready);
  CHECK(leaving.reason == "MemberLeaving");
}

TEST_CASE("the virtual Node publishes the virtual kubelet's address and port, or none") {
  auto without = virtual_node(member(), Readiness{}, nullptr, kNow);
  REQUIRE(without);
  CHECK((*without)["status"]["addresses"] == json::array());
  CHECK((*without)["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] == 0);
  auto with =
      virtual_node(member(), Readiness{}, nullptr, kNow, KubeletEndpoint{"10.244.0.9", 10250});
  REQUIRE(with);
  CHECK((*with)["status"]["addresses"] ==
        json::array({{{"type", "InternalIP"}, {"address", "10.244.0.9"}}}));
  CHECK((*with)["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"] == 10250);
}

TEST_CASE("the virtual Node of a member: name, labels, taint, capacity, conditions") {
  auto node = virtual_node(member(), readiness(status("True", "True"), Leaving::No), nullptr, kNow);
  REQUIRE_MESSAGE(node.has_value(), (node ? "" : node.error().message()));
  CHECK((*node)["apiVersion"] == "v1");
  CHECK((*node)["kind"] == "Node");
  CHECK((*node)["metadata"]["name"] == "kubectl-fed-c2");
  CHECK((*node)["metadata"]["labels"] == json{{"region", "eu-west"},
                                              {"kubectl-fed.io/type", "virtual-node"},
                                              {"kubectl-fed.io/cluster-id", "c2"},
                                              {"kubernetes.io/hostname", "kubectl-fed-c2"},
                                              {"app.kubernetes.io/part-of", "kubectl-fed"}});
  CHECK((*node)["spec"]["taints"] ==
        json::array({{{"key", "virtual-node.kubectl-fed.io/not-allowed"},
                      {"value", "true"},
                      {"effect", "NoExecute"}}}));
  const json resources{{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}};
  CHECK((*node)["status"]["capacity"] == resources);
  CHECK((*node)["status"]["allocatable"] == resources);
  const json* ready = node_condition(*node, "Ready");
  REQUIRE(ready != nullptr);
  CHECK((*ready)["status"] == "True");
  CHECK((*ready)["lastHeartbeatTime"] == kNowText);
  CHECK((*ready)["lastTransitionTime"] == kNowText);
  CHECK((*node_condition(*node, "MemoryPressure"))["status"] == "False");
}

TEST_CASE("conditions keep their transition time while unchanged, move when they flip") {
  const auto later = kNow + 60s;
  auto first =
      virtual_node(member(), readiness(status("True", "True"), Leaving::No), nullptr, kNow);
  REQUIRE(first);
  auto again =
      virtual_node(member(), readiness(status("True", "True"), Leaving::No), *first, later);
  REQUIRE(again);
  CHECK((*node_condition(*again, "Ready"))["lastTransitionTime"] == kNowText);
  CHECK((*node_condition(*again, "Ready"))["lastHeartbeatTime"] == "2026-11-18T11:07:40Z");
  auto down =
      virtual_node(member(), readiness(status("True", "False"), Leaving::No), *again, later);
  REQUIRE(down);
  CHECK((*node_condition(*down, "Ready"))["status"] == "False");
  CHECK((*node_condition(*down, "Ready"))["lastTransitionTime"] == "2026-11-18T11:07:40Z");
}

TEST_CASE("offered resources: absent is zero, malformed names the field") {
  auto spec = member();
  spec.offered_cpu.clear();
  auto node = virtual_node(spec, Readiness{}, nullptr, kNow);
  REQUIRE(node);
  CHECK((*node)["status"]["capacity"]["cpu"] == "0");
  CHECK((*node_condition(*node, "Ready"))["status"] == "False");
  spec.offered_memory = "8GB";
  node = virtual_node(spec, Readiness{}, nullptr, kNow);
  REQUIRE_FALSE(node);
  CHECK(node.error().code() == ErrorCode::Invalid);
  CHECK(node.error().message().starts_with("spec.offered.memory: "));
  spec.offered_memory = "-1";
  node = virtual_node(spec, Readiness{}, nullptr, kNow);
  REQUIRE_FALSE(node);
  CHECK(node.error().message().find("negative") != std::string::npos);
}

TEST_CASE("the heartbeat Lease in kube-node-lease, owned by the Node") {
  const json lease = node_lease("kubectl-fed-c2", "uid-1", kNow);
  CHECK(lease["apiVersion"] == "coordination.k8s.io/v1");
  CHECK(lease["kind"] == "Lease");
  CHECK(lease["metadata"]["namespace"] == "kube-node-lease");
  CHECK(lease["metadata"]["name"] == "kubectl-fed-c2");
  CHECK(lease["metadata"]["ownerReferences"][0] ==
        json{{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "kubectl-fed-c2"}, {"uid", "uid-1"}});
  CHECK(lease["spec"] == json{{"holderIdentity", "kubectl-fed-c2"},
                              {"leaseDurationSeconds", 40},
                              {"renewTime", "2026-11-18T11:06:40.123456Z"}});
  CHECK_FALSE(node_lease("n", "", kNow)["metadata"].contains("ownerReferences"));
}

}  // namespace fed::offload

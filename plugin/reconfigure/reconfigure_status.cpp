#include "plugin/reconfigure/reconfigure_status.hpp"

#include "plugin/reconfigure/cni_check_pod.hpp"
#include "shared/fedapi/offloading.hpp"
#include "shared/reconfig/change_set.hpp"
#include "shared/reconfig/node_progress.hpp"

namespace fed::plugin {

using nlohmann::json;

NodeStatus node_status(const json& node, const std::optional<json>& kubeletconfig,
                       const std::string& configz_error) {
  NodeStatus s;
  const json meta = node.value("metadata", json::object());
  s.node = meta.value("name", "");
  const json annotations = meta.value("annotations", json::object());
  s.cni_network = annotations.value(std::string(kCniNetworkAnnotation), "");
  s.cni_probe = annotations.value(std::string(kCniProbeAnnotation), "");
  s.desired = nullptr;
  s.observed = nullptr;
  auto progress = reconfig::progress_from_node(node);
  if (!progress) {
    s.error = progress.error().message();
    return s;
  }
  if (!progress->has_value()) {
    s.error = configz_error;
    return s;
  }
  const reconfig::Progress& p = **progress;
  s.phase = std::string(reconfig::to_string(p.phase));
  s.desired = p.desired;
  s.message = p.message;
  s.updated = p.updated;
  if (!kubeletconfig) {
    s.error = configz_error;
    return s;
  }
  auto set = reconfig::change_set_from_json(p.desired);
  if (!set) {
    s.error = set.error().message();
    return s;
  }
  s.observed = reconfig::values_at(*kubeletconfig, *set);
  s.in_sync = reconfig::mismatches(*kubeletconfig, p.desired).empty();
  return s;
}

ClusterStatus read_status(kube::DynamicClient& client, const std::string& context) {
  ClusterStatus cluster{context, {}, {}, std::nullopt};
  for (const auto& feature : cluster_features()) {
    cluster.features.push_back(observe_feature(client, feature));
  }
  kube::ListOptions real_nodes;
  real_nodes.label_selector = fedapi::kRealNodesSelector;
  auto nodes = client.list_all(kube::ResourceRef{{"", "v1", "nodes"}, "", "", ""}, real_nodes);
  if (!nodes) {
    cluster.error = nodes.error().to_error().with_context("listing nodes");
    return cluster;
  }
  for (const auto& node : (*nodes)["items"]) {
    const std::string name = node["metadata"].value("name", "");
    std::optional<json> config;
    std::string why;
    auto raw = client.get_raw("/api/v1/nodes/" + name + "/proxy/configz");
    if (!raw) {
      why = "kubelet /configz: " + raw.error().to_error().message();
    } else {
      auto doc = json::parse(*raw, nullptr, false);
      if (doc.is_discarded() || !doc.contains("kubeletconfig")) {
        why = "kubelet /configz: not a KubeletConfiguration";
      } else {
        config = doc["kubeletconfig"];
      }
    }
    cluster.nodes.push_back(node_status(node, config, why));
  }
  return cluster;
}

}  // namespace fed::plugin

#include "plugin/connect/cluster_facts.hpp"

#include <algorithm>

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/node_address.hpp"

namespace fed::plugin {
namespace {

using nlohmann::json;

const kube::ResourceRef kNodes{{"", "v1", "nodes"}, "", "", ""};

bool is_gateway(const json& node) {
  const json labels = node["metadata"].value("labels", json::object());
  return labels.value(std::string(kGatewayLabel), "") == "true";
}

// The items of a list, by reference (value() would copy them).
const json& items_of(const json& list) {
  static const json kEmpty = json::array();
  auto it = list.find("items");
  return it != list.end() && it->is_array() ? *it : kEmpty;
}

std::vector<const json*> sorted_nodes(const json& node_list) {
  std::vector<const json*> nodes;
  for (const auto& n : items_of(node_list)) nodes.push_back(&n);
  std::sort(nodes.begin(), nodes.end(), [](const json* a, const json* b) {
    return (*a)["metadata"].value("name", "") < (*b)["metadata"].value("name", "");
  });
  return nodes;
}

}  // namespace

namespace {

// Every node's IPv4 spec.podCIDR(s), with the node's name.
std::vector<std::pair<std::string, net::Cidr>> node_pod_cidrs(const json& node_list) {
  std::vector<std::pair<std::string, net::Cidr>> out;
  for (const auto& node : node_list.value("items", json::array())) {
    const json spec = node.value("spec", json::object());
    std::vector<std::string> texts;
    for (const auto& c : spec.value("podCIDRs", json::array()))
      texts.push_back(c.get<std::string>());
    if (texts.empty() && spec.contains("podCIDR")) texts.push_back(spec["podCIDR"]);
    for (const auto& t : texts) {
      if (t.find(':') != std::string::npos) continue;  // IPv6: not federated (yet)
      auto c = net::Cidr::parse(t);
      if (c) out.emplace_back(node.value("metadata", json::object()).value("name", ""), *c);
    }
  }
  return out;
}

}  // namespace

Status check_pod_cidr_covers_nodes(const net::Cidr& pod_cidr, const json& node_list,
                                   std::string_view flag) {
  const auto nodes = node_pod_cidrs(node_list);
  for (const auto& [name, cidr] : nodes) {
    if (pod_cidr.contains(cidr)) continue;
    std::vector<net::Cidr> all;
    for (const auto& n : nodes) all.push_back(n.second);
    return fail(ErrorCode::Invalid,
                "invalid " + std::string(flag) + " " + pod_cidr.str() + ": node " + name +
                    "'s spec.podCIDR " + cidr.str() +
                    " is outside it, so its pods would not be reached; give a range that "
                    "contains every node's (" +
                    net::smallest_containing(all).str() + " does) or leave " + std::string(flag) +
                    " out to use that");
  }
  return ok();
}

Result<net::Cidr> pod_cidr_from_nodes(const json& node_list, std::string_view flag) {
  std::vector<net::Cidr> cidrs;
  for (const auto& [name, cidr] : node_pod_cidrs(node_list)) cidrs.push_back(cidr);
  if (cidrs.empty()) {
    return fail(ErrorCode::NotFound,
                "no node has an IPv4 spec.podCIDR to derive the PodCIDR "
                "from; pass " +
                    std::string(flag));
  }
  return net::smallest_containing(cidrs);
}

Result<net::Cidr> service_cidr_from_object(const json& service_cidr, std::string_view flag) {
  for (const auto& c : service_cidr.value("spec", json::object()).value("cidrs", json::array())) {
    const std::string text = c.get<std::string>();
    if (text.find(':') != std::string::npos) continue;
    auto parsed = net::Cidr::parse(text);
    if (parsed) return *parsed;
  }
  return fail(ErrorCode::NotFound,
              "the kubernetes ServiceCIDR has no IPv4 range; pass " + std::string(flag));
}

bool ready_condition(const json& object) {
  for (const auto& c : object.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

Result<std::string> pick_gateway_node(const json& node_list, std::string_view requested) {
  const auto nodes = sorted_nodes(node_list);
  if (!requested.empty()) {
    for (const json* n : nodes) {
      if ((*n)["metadata"].value("name", "") == requested) return std::string(requested);
    }
    std::vector<std::string> names;
    for (const json* n : nodes) names.push_back((*n)["metadata"].value("name", ""));
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
    return fail(ErrorCode::NotFound, "--gateway-node " + std::string(requested) +
                                         ": no such node (nodes: " + list + ")");
  }
  for (const json* n : nodes) {
    if (is_gateway(*n)) return (*n)["metadata"].value("name", "");
  }
  // A node with an ExternalIP is one the cloud made reachable from outside the cluster: the
  // other clusters' gateways can dial it.
  for (const json* n : nodes) {
    if (ready_condition(*n) && fedapi::node_ipv4(*n, "ExternalIP")) {
      return (*n)["metadata"].value("name", "");
    }
  }
  for (const json* n : nodes) {
    if (ready_condition(*n)) return (*n)["metadata"].value("name", "");
  }
  return fail(
      ErrorCode::Unavailable,
      "no Ready node to be the gateway; wait for a node to be Ready or pass --gateway-node");
}

Result<std::optional<ClusterIdentity>> parse_identity(const json& configmap) {
  const json data = configmap.value("data", json::object());
  ClusterIdentity id;
  id.cluster_id = data.value("clusterID", "");
  const std::string role = data.value("role", "");
  if (id.cluster_id.empty() || (role != "host" && role != "member")) {
    return fail(ErrorCode::Invalid, "ConfigMap " + std::string(fedapi::kNamespace) +
                                        "/federation is malformed (clusterID or role missing); "
                                        "delete it or run kubectl fed unjoin");
  }
  id.role = role == "host" ? FederationRole::Host : FederationRole::Member;
  id.pod_cidr = data.value("podCIDR", "");
  id.service_cidr = data.value("serviceCIDR", "");
  id.federation_id = data.value("federationID", "");
  if (id.role == FederationRole::Host && id.federation_id.empty()) id.federation_id = id.cluster_id;
  return std::optional<ClusterIdentity>(std::move(id));
}

Result<json> list_nodes(kube::DynamicClient& client) {
  auto nodes = client.list_all(kNodes);
  if (!nodes)
    return fail(nodes.error().code(), "listing nodes: " + nodes.error().to_error().message());
  return std::move(*nodes);
}

Result<net::Cidr> fetch_service_cidr(kube::DynamicClient& client, std::string_view flag) {
  auto object = client.get(
      kube::ResourceRef{{"networking.k8s.io", "v1", "servicecidrs"}, "", "kubernetes", ""});
  if (!object) {
    if (object.error().is_not_found()) {
      return fail(ErrorCode::NotFound,
                  "the cluster has no `kubernetes` ServiceCIDR object (networking.k8s.io/v1) to "
                  "read the ServiceCIDR from; pass " +
                      std::string(flag));
    }
    return fail(object.error().code(),
                "reading the kubernetes ServiceCIDR: " + object.error().to_error().message());
  }
  return service_cidr_from_object(*object, flag);
}

Result<std::optional<ClusterIdentity>> fetch_identity(kube::DynamicClient& client) {
  auto cm = client.get(kube::ResourceRef{{"", "v1", "configmaps"},
                                         std::string(fedapi::kNamespace),
                                         std::string(kFederationConfigMap),
                                         ""});
  if (!cm) {
    if (cm.error().is_not_found()) return std::optional<ClusterIdentity>{};
    return fail(cm.error().code(), cm.error().to_error().message());
  }
  return parse_identity(*cm);
}

std::optional<json> gateway_marks_patch(const json& node, const GatewayChoice& gateway) {
  const json& meta = node["metadata"];
  const bool want = meta.value("name", "") == gateway.node;
  const std::string key(fedapi::kGatewayAddressAnnotation);
  const json annotations = meta.value("annotations", json::object());
  json patch = json::object();
  if (want != is_gateway(node)) {
    patch["metadata"]["labels"][std::string(kGatewayLabel)] = want ? json("true") : json(nullptr);
  }
  if (want && !gateway.address.empty() && annotations.value(key, "") != gateway.address) {
    patch["metadata"]["annotations"][key] = gateway.address;
  } else if (!want && annotations.contains(key)) {
    patch["metadata"]["annotations"][key] = nullptr;
  }
  if (patch.empty()) return std::nullopt;
  return patch;
}

Result<bool> label_gateway(kube::DynamicClient& client, const json& node_list,
                           const GatewayChoice& gateway) {
  bool changed = false;
  for (const auto& node : items_of(node_list)) {
    const std::string name = node["metadata"].value("name", "");
    auto patch = gateway_marks_patch(node, gateway);
    if (!patch) continue;
    auto r = client.patch(kNodes.named(name), kube::PatchType::Merge, patch->dump(),
                          kube::WriteOptions{std::string(kFieldManager), false, ""});
    if (!r) {
      return fail(r.error().code(),
                  "labelling node " + name + ": " + r.error().to_error().message());
    }
    changed = true;
  }
  return changed;
}

Status unlabel_gateways(kube::DynamicClient& client) {
  FED_ASSIGN_OR_RETURN(auto nodes, list_nodes(client));
  FED_ASSIGN_OR_RETURN(auto changed, label_gateway(client, nodes, GatewayChoice{}));
  (void)changed;
  return ok();
}

}  // namespace fed::plugin

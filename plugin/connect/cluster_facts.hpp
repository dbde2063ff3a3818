#pragma once
// What `init` and `join` learn from a cluster before writing (docs/JOIN.md): its PodCIDR (the
// smallest network containing every node's spec.podCIDR), its ServiceCIDR (the `kubernetes`
// ServiceCIDR object), the gateway node, and its federation ConfigMap. The pure parts take the
// API objects; the fetch functions read them.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "plugin/manifests/render.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/net/net_types.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The PodCIDR of a NodeList: the smallest network containing every IPv4 spec.podCIDR(s).
// NotFound (with "pass <flag>") when no node has one.
Result<net::Cidr> pod_cidr_from_nodes(const nlohmann::json& node_list, std::string_view flag);

// Invalid, naming `flag`, the first node outside it and the range that would do, when a node's
// IPv4 spec.podCIDR lies outside `pod_cidr`.
Status check_pod_cidr_covers_nodes(const net::Cidr& pod_cidr, const nlohmann::json& node_list,
                                   std::string_view flag);

// The first IPv4 CIDR of a ServiceCIDR object's spec.cidrs.
Result<net::Cidr> service_cidr_from_object(const nlohmann::json& service_cidr,
                                           std::string_view flag);

// Whether the Ready condition of a Node or a Pod is True.
bool ready_condition(const nlohmann::json& object);

// The gateway node: `requested` when set (NotFound when no such node); else a node already
// labelled kubectl-fed.io/gateway=true; else the first Ready node by name with an ExternalIP;
// else the first Ready node by name.
Result<std::string> pick_gateway_node(const nlohmann::json& node_list, std::string_view requested);

// Reads a federation ConfigMap; NotFound-free: nullopt when the cluster has none.
Result<std::optional<ClusterIdentity>> parse_identity(const nlohmann::json& configmap);

// The cluster's NodeList.
Result<nlohmann::json> list_nodes(kube::DynamicClient& client);
// The `kubernetes` ServiceCIDR's network; NotFound with "pass <flag>" when the API has none.
Result<net::Cidr> fetch_service_cidr(kube::DynamicClient& client, std::string_view flag);
// The federation ConfigMap's identity, or nullopt when the cluster was never initialised/joined.
Result<std::optional<ClusterIdentity>> fetch_identity(kube::DynamicClient& client);

// The gateway node and, when set, the address its peers reach it at (--gateway-address; empty
// keeps what the node's annotation says, else the agent uses its ExternalIP or InternalIP).
struct GatewayChoice {
  std::string node;
  std::string address;
};

// The merge patch that makes `node` carry the gateway label and address annotation when it is
// the chosen gateway, and neither when it is not; nullopt when it already does. Pure.
std::optional<nlohmann::json> gateway_marks_patch(const nlohmann::json& node,
                                                  const GatewayChoice& gateway);

// Applies gateway_marks_patch to every node of `node_list`. False when nothing had to change.
Result<bool> label_gateway(kube::DynamicClient& client, const nlohmann::json& node_list,
                           const GatewayChoice& gateway);

// Removes the gateway label and address annotation from every node that has them.
Status unlabel_gateways(kube::DynamicClient& client);

}  // namespace fed::plugin

#pragma once
// The objects `init` and `join` write (docs/JOIN.md): the embedded manifests/ files, parsed,
// selected for the cluster's role and with the image and namespace substituted, plus the
// federation ConfigMap that says who the cluster is. Pure.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/fedapi/names.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

inline constexpr std::string_view kDefaultImage = "fed.local/fed-agent:dev";
inline constexpr std::string_view kPartOfLabel = "app.kubernetes.io/part-of";
inline constexpr std::string_view kPartOfValue = "kubectl-fed";
inline constexpr std::string_view kPartOfSelector = "app.kubernetes.io/part-of=kubectl-fed";
inline constexpr std::string_view kFieldManager = "kubectl-fed";
using fedapi::kFederationConfigMap;
using fedapi::kGatewayLabel;

enum class FederationRole { Host, Member };

// What the federation ConfigMap of a cluster says.
struct ClusterIdentity {
  std::string cluster_id;
  FederationRole role = FederationRole::Host;
  std::string pod_cidr;
  std::string service_cidr;
  std::string federation_id;  // the host's cluster id (the host's own on the host)
};

// The provider's tenancy on a member (docs/OFFLOAD.md): the flags of `fed-agent tenancy`.
struct TenancySettings {
  int namespace_quota = 20;    // replica namespaces per consumer; 0 = no cap
  std::string share_cpu;       // ResourceQuota requests.cpu of each replica ("" = none)
  std::string share_memory;    // ResourceQuota requests.memory of each replica ("" = none)
  std::string local_pod_cidr;  // the member's PodCIDR, for the replicas' NetworkPolicy
};

// The federation etcd member's image on a host (manifests/manager/etcd.yaml).
inline constexpr std::string_view kDefaultEtcdImage = "registry.k8s.io/etcd:3.5.21-0";

struct RenderOptions {
  std::string image = std::string(kDefaultImage);
  std::string namespace_name = std::string(fedapi::kNamespace);
  TenancySettings tenancy;  // members only
  // The node agents route to on-link nodes without VXLAN (fed-agent node --direct-routing).
  bool direct_routing = false;
  // The gateway's WireGuard: auto, kernel or wireguard-go (fed-agent node --wireguard-backend;
  // auto, the agent's default, adds no flag).
  std::string wireguard = "auto";
  std::string etcd_image = std::string(kDefaultEtcdImage);  // hosts only
  // The roles that serve admission webhooks (manager, tenancy, podpreset) answer only the API
  // server's front-proxy certificate (fed-agent --webhook-caller-auth).
  bool webhook_caller_auth = false;
};

// --webhook-caller-auth of init, join, host add and reconfigure: its help.
inline constexpr std::string_view kWebhookCallerAuthHelp =
    "The webhooks answer only kube-apiserver's front-proxy client certificate, refusing any "
    "other caller; needs the API server's admission configuration to present it to webhooks "
    "(docs/SECURITY.md, \"Webhook callers\")";

// Invalid, naming the flag and its values, unless `value` is auto, kernel or wireguard-go.
Status validate_wireguard_flag(const std::string& value);

// Every object of the embedded manifests with the options applied, each tagged with the file
// it came from in annotation-free form: {path, object}.
struct RenderedObject {
  std::string path;  // "agent/daemonset.yaml"
  nlohmann::json object;
};
Result<std::vector<RenderedObject>> render_all(const RenderOptions& options);

// init on a host: the four CRDs, the namespace, manager and agent objects, the ConfigMap.
Result<std::vector<nlohmann::json>> render_host(const ClusterIdentity& id,
                                                const RenderOptions& options);

// join on a member: the Peering, NatMapping and IpamState CRDs, the namespace, the agent
// objects, the federation identity, the provider's tenancy (its Deployment's flags from
// options.tenancy; without a namespace cap, no namespace webhook) and the ConfigMap (role
// member).
Result<std::vector<nlohmann::json>> render_member(const ClusterIdentity& id,
                                                  const RenderOptions& options);

// An optional feature of `kubectl fed reconfigure` (manifests/features/NAME/, e.g. "podpreset"):
// its objects with the options applied. Never part of init or join.
Result<std::vector<nlohmann::json>> render_feature(std::string_view name,
                                                   const RenderOptions& options);

// The arguments of `fed-agent tenancy` for `settings`.
std::vector<std::string> tenancy_args(const TenancySettings& settings);

// The federation ConfigMap kubectl-fed-system/federation.
nlohmann::json federation_configmap(const ClusterIdentity& id, std::string_view namespace_name);

// A v1 List of `items`, as kubectl prints several objects.
nlohmann::json object_list(const std::vector<nlohmann::json>& items);

// "clusterrole/kubectl-fed:agent": how kubectl names an object in its output.
std::string object_label(const nlohmann::json& object);

}  // namespace fed::plugin

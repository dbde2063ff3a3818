#pragma once
// The objects kubectl fed reconfigure creates in a cluster: the kubectl-fed-system namespace,
// a ServiceAccount with the narrow ClusterRole the node agent needs (read and annotate Nodes,
// read the kubelet through the node proxy), and one privileged one-shot Pod per node that runs
// `fed-agent reconfigure-node`. Pure.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/manifests/render.hpp"
#include "plugin/reconfigure/reconfigure_plan.hpp"

namespace fed::plugin {

inline constexpr std::string_view kReconfigureNamespace = fedapi::kNamespace;
inline constexpr std::string_view kReconfigureAccount = "kubectl-fed-reconfigure";
inline constexpr std::string_view kComponentLabel = "app.kubernetes.io/component";
inline constexpr std::string_view kReconfigureComponent = "reconfigure-node";
inline constexpr std::string_view kNodeAnnotation = "kubectl-fed.io/node";

// The namespace, labelled app.kubernetes.io/part-of=kubectl-fed.
nlohmann::json reconfigure_namespace();
// ServiceAccount, ClusterRole and ClusterRoleBinding, in creation order.
std::vector<nlohmann::json> reconfigure_rbac();

// The name of `node`'s agent Pod: "reconfigure-" + the node's name, shortened with a hash
// when that would pass 63 characters.
std::string agent_pod_name(std::string_view node);
// `prefix` + `node`, shortened the same way.
std::string node_pod_name(std::string_view prefix, std::string_view node);

// The one-shot Pod that changes `node`'s kubelet: pinned with spec.nodeName, hostPID (nsenter
// into PID 1's namespaces to restart the kubelet) and hostNetwork (it talks to the API server
// while the kubelet, and with it the pod network, restarts), privileged, tolerating the
// cordon and the NotReady window of the restart, with the kubelet's config and root
// directories mounted at the same paths.
// `api_endpoint` ("IP:PORT" of the API server, from the `kubernetes` Endpoints), when not
// empty, replaces the Service address the agent would use: a host-network pod cannot count on a
// route to the Service range (a node without a default route has none).
nlohmann::json agent_pod(const ReconfigurePlan& plan, std::string_view node,
                         std::string_view api_endpoint = "");

// fed-agent's command line in that Pod.
std::vector<std::string> agent_command(const ReconfigurePlan& plan, std::string_view node);

}  // namespace fed::plugin

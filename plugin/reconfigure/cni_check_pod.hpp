#pragma once
// The CNI switch's check on each node, after the agent wrote (or removed) the file: a new pod
// pinned to the node must get an address, and after a switch one from the new network's
// host-local subnets — proof that the runtime uses it, not only that the file is there.

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "plugin/reconfigure/reconfigure_plan.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// On a Node whose CNI switch passed its check: the network new pods get there, and the probe's
// result line. Removed by --rollback; `reconfigure status` shows them.
inline constexpr std::string_view kCniNetworkAnnotation = "kubectl-fed.io/cni-network";
inline constexpr std::string_view kCniProbeAnnotation = "kubectl-fed.io/cni-probe";

// The probe pod for `node`: kubectl-fed-system/cni-probe-NODE, spec.nodeName, the agent image
// serving nothing for a minute, no service account token, tolerating the cordon.
nlohmann::json cni_probe_pod(const std::string& image, std::string_view node);

// Why `ip` does not show that `cni` is in force ("" when it does): after a switch it must be in
// one of the network's subnets (any address when it has none we can read). Pure.
std::string probe_ip_problem(const CniSwitchPlan& cni, const std::string& ip);

// Creates the probe pod on `node`, waits up to `timeout` for its address, checks it and deletes
// the pod. The result line on success ("a new pod got 10.250.0.4 from network alt"); Failed
// names the address and the fix (--rollback) otherwise.
Result<std::string> probe_cni(kube::DynamicClient& client, const ReconfigurePlan& plan,
                              const std::string& node, std::chrono::seconds timeout);

}  // namespace fed::plugin

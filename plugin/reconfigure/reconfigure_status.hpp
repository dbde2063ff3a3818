#pragma once
// kubectl fed reconfigure status: per node, what was asked (the kubectl-fed.io/reconfigure-*
// annotations the node agent writes), what the kubelet runs (/configz through the API
// server's node proxy), the phase and the last message.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/reconfigure/reconfigure_features.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

struct NodeStatus {
  std::string node;
  std::string phase;        // empty: never reconfigured by kubectl-fed
  nlohmann::json desired;   // {key: value} asked for; null when none
  nlohmann::json observed;  // the same keys in /configz; null when not readable
  bool in_sync = false;     // observed equals desired
  std::string message;      // the agent's last failure or rollback reason
  std::string updated;      // RFC 3339
  std::string error;        // why the annotations or /configz could not be read
  std::string cni_network;  // the network a CNI switch gave new pods here; "" = the node's own
  std::string cni_probe;    // what its check's pod got
};

struct ClusterStatus {
  std::string context;
  std::vector<NodeStatus> nodes;
  std::vector<FeatureState> features;  // every cluster feature, installed or not
  std::optional<Error> error;
};

// The status of one node from its Node object (progress and CNI annotations) and its
// kubelet's /configz `kubeletconfig`
// (nullopt when /configz could not be read; `configz_error` says why). Pure.
NodeStatus node_status(const nlohmann::json& node,
                       const std::optional<nlohmann::json>& kubeletconfig,
                       const std::string& configz_error);

// Reads every node and cluster feature of the cluster behind `client`.
ClusterStatus read_status(kube::DynamicClient& client, const std::string& context);

}  // namespace fed::plugin

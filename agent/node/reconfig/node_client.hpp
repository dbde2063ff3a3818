#pragma once
// The node agent's view of its own Node through the API server: progress annotations, and the
// kubelet's /healthz and /configz through the node proxy (/api/v1/nodes/NAME/proxy/...), which
// works wherever the API server can reach the kubelet, with the API server's credentials.

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/node/reconfig/health_gate.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/reconfig/node_progress.hpp"
#include "shared/result/result.hpp"

namespace fed::reconfig {

class NodeClient {
 public:
  NodeClient(std::shared_ptr<kube::DynamicClient> client, std::string node);
  virtual ~NodeClient() = default;

  // The Node object; NotFound names the node.
  virtual Result<nlohmann::json> get_node();
  // Writes `progress` into the Node's annotations (merge patch; other annotations untouched).
  virtual Status save(const Progress& progress);
  // One look at /healthz, the Node and /configz; never fails, the details say what did.
  virtual KubeletObservation observe();

  const std::string& node() const { return node_; }

 private:
  std::shared_ptr<kube::DynamicClient> client_;
  std::string node_;
};

}  // namespace fed::reconfig

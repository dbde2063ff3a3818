#pragma once
// Why the data-path probe of `join --wait` got no answer although both gateways report the
// tunnel connected: the node agents on the probe's path (the dialler's node, both gateways, the
// listener's node) as their pods and their Node Events say. An agent that is not Ready has not
// converged its routes, rules or NAT; its DatapathFailed / DatapathInvalid Event names what the
// kernel refused.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/membership/path_proof.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// A node of the probe's path.
struct PathNode {
  std::string cluster;
  std::string node;
  friend bool operator==(const PathNode&, const PathNode&) = default;
};

// Per path node, in path order: a missing or not Ready fed-agent pod, and the newest Warning
// Event of fed-agent-node on the Node since `since` (RFC 3339) unless a DatapathConverged Event
// followed it. `agent_pods` and `node_events` are PodLists and EventLists keyed by cluster. Pure.
std::vector<std::string> agent_findings(const std::vector<PathNode>& path,
                                        const std::map<std::string, nlohmann::json>& agent_pods,
                                        const std::map<std::string, nlohmann::json>& node_events,
                                        const std::string& since);

// Reads the agents' pods and Node Events of both clusters and words agent_findings() as one
// clause, or says that the agents report nothing (the failure is then outside their view).
Result<std::string> diagnose_path(const ProbeSides& sides, const std::vector<PathNode>& path,
                                  const std::string& since);

}  // namespace fed::plugin

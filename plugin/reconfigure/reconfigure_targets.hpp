#pragma once
// Which clusters kubectl fed reconfigure touches: every --context as given, or the
// federation's members chosen by their cluster labels (--clusters SEL, or a FeatureConfig's
// spec.clusterSelector) from the FederatedClusters on the federation's leader host (reached
// from the host --context names, or the current one, as every federation verb is). A member is
// reached through the kubeconfig context named after it, the same convention `unjoin` uses:
// reconfiguring kubelets needs the member admin's rights, which the federation's own identity on a
// member deliberately lacks.

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/cli/global_options.hpp"
#include "plugin/connect/host_connection.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/label_selector.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

struct Targets {
  std::vector<std::string> contexts;  // one per cluster, in order ("" = the current context)
  std::vector<std::string> labels;    // the name each cluster is reported under
  // The federation's leader host, when the clusters were chosen from its members.
  std::optional<HostConnection> host;
};

// The names of the members in `federated_clusters` (a FederatedClusterList) whose
// spec.clusterLabels match `selector`, sorted; the host's own entry (role host) never. Pure.
std::vector<std::string> select_members(const nlohmann::json& federated_clusters,
                                        const kube::LabelSelector& selector);

// The clusters of a run. With `selector` (canonical text, "" = every member) the leader's host
// is read (a follower's has no FederatedClusters; following it is said on `notes`) and every
// selected member must have a context, checked before anything changes: NotFound names a
// missing context and how to add it, or says that no member matches (listing them); Invalid
// when several --context were given with a selector.
Result<Targets> resolve_targets(const GlobalOptions& global,
                                const std::optional<std::string>& selector, std::ostream& notes);

// A client for `context` of the kubeconfig the global flags name.
Result<std::shared_ptr<kube::DynamicClient>> client_for(const GlobalOptions& global,
                                                        const std::string& context);

}  // namespace fed::plugin

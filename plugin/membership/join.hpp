#pragma once
// kubectl fed join MEMBER: installs the member side with the user's credentials (peering CRDs,
// namespace, federation ConfigMap, agent, the federation's least-privilege identity), then
// registers the member on the host (credential Secret, FederatedCluster), as docs/JOIN.md says.
// Compares before writing: joining again with the same spec writes nothing ("already joined").

#include <chrono>
#include <string>

#include "plugin/cli/command.hpp"
#include "plugin/connect/member_connection.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/membership/membership_validation.hpp"

namespace fed::plugin {

struct JoinOptions {
  std::string member;               // MEMBER: its name and cluster id
  MemberFlags member_flags;         // --member-context / --member-kubeconfig
  std::string cluster_labels;       // --cluster-labels k=v,...
  std::string share_cpu;            // --share-cpu
  std::string share_memory;         // --share-memory
  int namespace_quota = 20;         // --namespace-quota: replicas the host may hold; 0 = no cap
  std::string member_api_endpoint;  // --member-api-endpoint; empty = the member kubeconfig's
  std::string gateway_node;         // --gateway-node; empty = the labelled, else first Ready
  std::string gateway_address;      // --gateway-address; empty = the node's own
  std::string image = std::string(kDefaultImage);              // --image (the member's agent)
  bool direct_routing = false;                                 // --direct-routing
  std::string wireguard = "auto";                              // --wireguard
  bool webhook_caller_auth = false;                            // --webhook-caller-auth
  std::string tunnel_backend = "wireguard";                    // --tunnel-backend
  bool wait = false;                                           // --wait: until the member is Ready
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // --timeout
  DryRun dry_run = DryRun::None;                               // --dry-run
};

// Checks the flags without contacting a cluster; Invalid naming the flag and the fix.
Status validate_join_flags(const JoinOptions& options);

// Joins options.member to the federation whose host is the current context.
Status run_join(const GlobalOptions& global, const JoinOptions& options, Output& out);

// The command table entry.
extern const Command kJoinCommand;

}  // namespace fed::plugin

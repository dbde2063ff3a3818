#pragma once
// kubectl fed init: makes the current cluster the host of a federation (docs/JOIN.md) — CRDs,
// namespace, federation ConfigMap (role host), manager and agent with their RBAC, applied by
// server-side apply, and the gateway node labelled. Idempotent.

#include <string>

#include "plugin/cli/command.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/membership/membership_validation.hpp"

namespace fed::plugin {

struct InitOptions {
  std::string cluster_id;    // --cluster-id; empty = the context name, lower-cased
  std::string pod_cidr;      // --pod-cidr; empty = discovered from the nodes
  std::string service_cidr;  // --service-cidr; empty = the `kubernetes` ServiceCIDR
  std::string image = std::string(kDefaultImage);           // --image
  std::string etcd_image = std::string(kDefaultEtcdImage);  // --etcd-image
  std::string gateway_node;          // --gateway-node; empty = first Ready node
  std::string gateway_address;       // --gateway-address; empty = the node's own
  bool direct_routing = false;       // --direct-routing
  std::string wireguard = "auto";    // --wireguard
  bool webhook_caller_auth = false;  // --webhook-caller-auth
  DryRun dry_run = DryRun::None;     // --dry-run
};

// Checks what can be checked without a cluster: the cluster id and the CIDR flags (each valid,
// not overlapping each other). Invalid, naming the flag and the fix.
Status validate_init_flags(const InitOptions& options);

// Runs init against the cluster of --kubeconfig/--context. Nothing is written when validation
// fails or with --dry-run=client (the objects are printed instead).
Status run_init(const GlobalOptions& global, const InitOptions& options, Output& out);

// The command table entry.
extern const Command kInitCommand;

}  // namespace fed::plugin

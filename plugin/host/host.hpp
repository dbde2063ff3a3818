#pragma once
// kubectl fed host add|remove|list (docs/HA.md): the federation's host clusters. `init` makes the
// first; `host add NAME --host-context CTX` installs another host — its federation etcd member
// joins the federation's etcd cluster (as a learner, then promoted by the leading manager) and
// its two manager replicas stand by — and `host list` shows them with their etcd membership.

#include <chrono>
#include <string>

#include "plugin/cli/command.hpp"
#include "plugin/connect/member_connection.hpp"
#include "plugin/manifests/render.hpp"
#include "plugin/membership/membership_validation.hpp"

namespace fed::plugin {

struct HostOptions {
  std::string action;      // add | list
  std::string name;        // NAME: the new host's cluster id
  MemberFlags host_flags;  // --host-context / --host-kubeconfig
  std::string gateway_node;
  std::string gateway_address;
  std::string image = std::string(kDefaultImage);
  std::string etcd_image = std::string(kDefaultEtcdImage);
  bool webhook_caller_auth = false;                            // add: --webhook-caller-auth
  std::chrono::milliseconds timeout{std::chrono::minutes(3)};  // --timeout
  DryRun dry_run = DryRun::None;
};

// Checks the action and flags without a cluster; Invalid naming the flag and the fix.
Status validate_host_flags(const HostOptions& options);

Status run_host(const GlobalOptions& global, const HostOptions& options, Output& out);
// host add and host remove, once validated.
Status run_host_add(const GlobalOptions& global, const HostOptions& options, Output& out);
Status run_host_remove(const GlobalOptions& global, const HostOptions& options, Output& out);

// The rows of `host list` from the FederationHost list and fed-leader's data (may be empty):
// NAME, ROLE, ETCD (phase), MEMBER ID, PEER URL, READY. Pure.
Table host_list_table(const nlohmann::json& hosts, const nlohmann::json& leader_data);

extern const Command kHostCommand;

}  // namespace fed::plugin

#pragma once
// kubectl fed offload namespace NS / kubectl fed unoffload namespace NS (docs/OFFLOAD.md): the
// NamespaceOffloading `offloading` of a host namespace, written from flags. The manager's
// controllers do the rest (NamespaceMaps, replicas on the selected members, status); --wait
// follows offloadingPhase. Offloading again with the same flags changes nothing.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/cli/command.hpp"
#include "plugin/membership/membership_validation.hpp"

namespace fed::plugin {

struct OffloadOptions {
  std::string kind;  // the positional "namespace" (the only kind today)
  std::string namespace_name;
  std::string namespace_mapping_strategy = "DefaultName";
  std::string remote_namespace_name;  // SelectedName only
  std::string pod_offloading_strategy = "LocalAndRemote";
  std::vector<std::string> selectors;  // each a term: label-selector syntax, ANDed within
  bool wait = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
  DryRun dry_run = DryRun::None;
};

struct UnoffloadOptions {
  std::string kind;
  std::string namespace_name;
  bool wait = false;
  bool force = false;  // --force: the pods are not brought home first
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
};

// The NamespaceOffloading the flags describe, checked as the manager will check it: Invalid
// naming the flag (an unknown strategy, a malformed --selector, a DefaultName remote name over
// 63 characters for `host_cluster_id`, not checked when it is empty: unknown yet; a namespace
// that is not a DNS label). Pure.
Result<nlohmann::json> offloading_from_flags(const OffloadOptions& options,
                                             const std::string& host_cluster_id);

Status run_offload(const GlobalOptions& global, const OffloadOptions& options, Output& out);
Status run_unoffload(const GlobalOptions& global, const UnoffloadOptions& options, Output& out);

extern const Command kOffloadCommand;
extern const Command kUnoffloadCommand;

}  // namespace fed::plugin

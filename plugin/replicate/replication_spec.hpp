#pragma once
// What `kubectl fed replicate` writes (spec 001 §2.5): the DeploymentReplication NAME in NS,
// built from the flags and the Deployment to replicate (a -f manifest or a live Deployment) and
// checked before anything is written, so that a mistake is one line naming the field and the
// fix (exit code 2) instead of a replication the manager cannot act on. Pure.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin/membership/membership_validation.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// Replica names are NAME + "-" + a 5-character generateName suffix: at most 63 in all.
inline constexpr std::size_t kMaxReplicationNameLength = 57;
// Every object kubectl-fed writes for a user's workload says who manages it.
inline constexpr std::string_view kManagedByLabel = "app.kubernetes.io/managed-by";

struct ReplicateOptions {
  std::string name;
  std::string file;             // -f: a Deployment manifest, "-" for stdin
  std::string from_deployment;  // --from-deployment: a Deployment of NS read through the API
  std::vector<std::string> generation_labels;  // --generation-label, in order
  std::vector<std::string> selectors;          // --selector, one NodeSelector term each
  bool wait = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
  DryRun dry_run = DryRun::None;
};

// The checks that need nothing but the flags: NAME a DNS label of at most 57 characters, exactly
// one of -f and --from-deployment, --generation-label keys valid and distinct, --selector terms
// well formed. Invalid naming the flag.
Status validate_replicate_flags(const ReplicateOptions& options);

// Invalid unless `ns` (-n, or the context's namespace) is a namespace name.
Status validate_replication_namespace(const std::string& ns);

// The Deployment of a -f manifest: exactly one YAML document, apps/v1 kind Deployment. Invalid
// naming `source` ("-f web.yaml") for malformed YAML, other kinds or several documents.
Result<nlohmann::json> deployment_from_manifest(std::string_view text, std::string_view source);

// The DeploymentReplication NAME in `ns` replicating `deployment`: its labels and annotations
// (without the ones the API server and kubectl add) and spec become spec.template. Invalid
// naming `source` and the field when the Deployment lacks spec.selector or spec.template, its
// pod labels miss a matchLabels entry, or it names another namespace than `ns`.
Result<nlohmann::json> replication_from_deployment(const ReplicateOptions& options,
                                                   const std::string& ns,
                                                   const nlohmann::json& deployment,
                                                   std::string_view source);

}  // namespace fed::plugin

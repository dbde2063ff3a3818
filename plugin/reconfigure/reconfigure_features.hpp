#pragma once
// kubectl fed reconfigure's cluster features: seed 003's tactic T1, an API the cluster lacks
// installed as a CRD plus the webhook that implements it (manifests/features/NAME/), next to
// the kubelet fields the node agent rolls (tactic T2). One so far: podPreset. Installing is a
// server-side apply of the embedded manifests, then a wait until the feature is Ready the way
// the paper monitors it (the API in discovery) and beyond it (the webhook's Deployment
// available, its configuration carrying the CA bundle).

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "plugin/reconfigure/reconfigure_rollout.hpp"
#include "shared/kube/dynamic_client.hpp"

namespace fed::plugin {

inline constexpr std::string_view kPodPresetFeature = "podPreset";

// The features `reconfigure --set NAME=true` and FeatureConfig spec.NAME know. Inline: the
// FeatureConfig reader (and its fuzz target) needs the names, not the installer.
inline const std::vector<std::string_view>& cluster_features() {
  static const std::vector<std::string_view> kFeatures = {kPodPresetFeature};
  return kFeatures;
}

inline bool is_cluster_feature(std::string_view key) {
  for (auto known : cluster_features()) {
    if (known == key) return true;
  }
  return false;
}

struct FeatureState {
  std::string name;
  bool installed = false;  // its API is served
  bool ready = false;      // and its webhook answers with a trusted certificate
  std::string message;     // what is missing when not ready
};

// Applies `name`'s objects with `image` and waits up to `timeout` until it is Ready: Applied
// (something was written), AlreadyApplied (nothing to write, Ready) or Failed (why).
FeatureResult install_feature(kube::DynamicClient& client, std::string_view name,
                              const std::string& image, bool webhook_caller_auth,
                              std::chrono::seconds timeout, const ProgressFn& progress);

// Takes `name` out again (FEATURE=false): its webhook configuration first, so that no request
// waits on a webhook that is going, then its workload, RBAC, Secret and CRD, in reverse order
// of installation; waits up to `timeout` until the API is no longer served. Refused (Failed,
// nothing deleted) while objects of its API exist: they would go with the CRD. Removed,
// AlreadyApplied (nothing was installed) or Failed.
FeatureResult remove_feature(kube::DynamicClient& client, std::string_view name,
                             std::chrono::seconds timeout, const ProgressFn& progress);

// What the cluster behind `client` shows of `name` now.
FeatureState observe_feature(kube::DynamicClient& client, std::string_view name);

// The objects `name` installs with `image` (for --dry-run), its webhook answering only the API
// server with `webhook_caller_auth`.
Result<std::vector<nlohmann::json>> feature_objects(std::string_view name, const std::string& image,
                                                    bool webhook_caller_auth = false);

}  // namespace fed::plugin

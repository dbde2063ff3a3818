#pragma once
// A FeatureConfig (fed.kubectl-fed.io/v1alpha1, manifests/crds/fed.kubectl-fed.io_featureconfigs
// .yaml), the declarative input of kubectl fed reconfigure, read into what the flags would
// say: the kubelet fields and cluster features as --set items, the CNI switch, the members it
// is for, how nodes roll. Pure: tests read documents without a cluster.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "shared/result/result.hpp"

namespace fed::plugin {

struct FeatureConfigSpec {
  std::string name;                // metadata.name; "" when the document has none
  std::vector<std::string> items;  // spec.kubelet as field=value (maps as field.KEY=value),
                                   // then spec.FEATURE as FEATURE=true|false
  std::optional<std::string> cluster_selector;  // spec.clusterSelector ("" = every member)
  std::optional<int> max_unavailable;           // spec.maxUnavailable
  std::optional<bool> drain;                    // spec.drain
  std::string cni_conflist;  // spec.cni.conflist as JSON text; "" when no CNI switch
  std::string cni_conf_dir;  // spec.cni.confDir
  nlohmann::json document;   // the document as given, for the host's record
};

// Reads one FeatureConfig document. Invalid names the field and what it expects: another
// kind, an unknown spec key (with the known ones), a value of the wrong type, nothing to do.
Result<FeatureConfigSpec> read_feature_config(const nlohmann::json& doc);

}  // namespace fed::plugin

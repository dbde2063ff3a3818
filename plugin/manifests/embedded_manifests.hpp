#pragma once
// The files of manifests/kustomization.yaml, embedded at build time (embed_manifests.cmake), so
// that the plugin and `kubectl apply -k manifests/` cannot drift apart.

#include <string_view>
#include <vector>

namespace fed::plugin {

struct EmbeddedManifest {
  std::string_view path;  // relative to manifests/: "agent/daemonset.yaml"
  std::string_view text;  // the file's YAML, possibly several documents
};

// Every file, in kustomization order.
const std::vector<EmbeddedManifest>& embedded_manifests();

}  // namespace fed::plugin

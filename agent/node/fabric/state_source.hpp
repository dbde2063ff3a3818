#pragma once
// Where a node's desired network state comes from: a file now (--state-file), the
// Peering/NatMapping informer cache later. The reconciler reads it at every pass.

#include <filesystem>
#include <string>

#include "agent/node/fabric/node_state.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

class NodeStateSource {
 public:
  virtual ~NodeStateSource() = default;
  // The current desired state, validated; Invalid when it cannot be applied.
  virtual Result<NodeNetworkState> load() = 0;
};

// Reads and parses a YAML/JSON file at every load().
class FileNodeStateSource final : public NodeStateSource {
 public:
  explicit FileNodeStateSource(std::filesystem::path path) : path_(std::move(path)) {}
  Result<NodeNetworkState> load() override;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace fed::fabric

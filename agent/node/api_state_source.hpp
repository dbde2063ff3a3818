#pragma once
// The node role's NodeStateSource in a federation: informers on this cluster's Nodes, Peerings,
// NatMappings and the ConfigMaps of kubectl-fed-system (federation, gateway) feed
// build_node_state() and the gateway tunnel. on_change() queues a pass on every change, and
// take_changes() tells the pass what changed, so a NatMapping's change converges the DNAT maps
// alone (node_runner.cpp).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/node/fabric/state_source.hpp"
#include "agent/node/node_state_builder.hpp"
#include "shared/kube/dynamic_client.hpp"
#include "shared/kube/informer.hpp"

namespace fed::federation {

// What changed in the caches since the last take_changes().
struct InputChanges {
  bool nat_mappings = false;  // a NatMapping added, deleted, or its spec changed (generation)
  bool others = false;        // a Node, Peering or ConfigMap
};

// Whether the pass after `changes` may be the DNAT maps' transaction alone (node_runner.cpp):
// only NatMappings changed, the last pass converged everything, no tunnel waits for its first
// handshake (the full pass reports it) and no full pass is due (the resync).
inline bool mappings_only_pass(const InputChanges& changes, bool converged, bool handshake_pending,
                               bool full_pass_due) {
  return changes.nat_mappings && !changes.others && converged && !handshake_pending &&
         !full_pass_due;
}

// A NatMapping as the last load() read it: what a pass that converged has applied.
struct LoadedNatMapping {
  std::int64_t generation = 0;
  std::int64_t entries = 0;
  friend bool operator==(const LoadedNatMapping&, const LoadedNatMapping&) = default;
};

class ApiNodeStateSource final : public fabric::NodeStateSource {
 public:
  // `tunnel_interface`: the gateway's link toward the peers, as the tunnel names it.
  ApiNodeStateSource(std::shared_ptr<kube::DynamicClient> client, std::string node_name,
                     std::string tunnel_interface = std::string(kTunnelInterface));
  ~ApiNodeStateSource() override;

  // Starts the informers and waits for their first lists; Unavailable when they do not sync
  // within `timeout` (the API server is unreachable or the agent lacks RBAC).
  Status start(std::chrono::milliseconds timeout);
  void stop();

  // The desired state from the caches; NotFound while the cluster has no federation ConfigMap
  // (never initialised or joined), Invalid when an object is malformed.
  Result<fabric::NodeNetworkState> load() override;
  // The NatMappings the last load() built from, by name; empty unless this node was the
  // gateway then (only the gateway installs them).
  std::map<std::string, LoadedNatMapping> loaded_nat_mappings() const;
  // Why peerings are not installed yet ("c2: the peer's gateway is not up").
  std::vector<std::string> pending() const;
  // Everything load() builds from, as the caches hold it now (the gateway tunnel's input).
  Result<NodeStateInputs> inputs() const;

  // Called (on an informer thread) after every change of an input; set before start().
  void on_change(std::function<void()> callback) { on_change_ = std::move(callback); }

  // What changed since the previous call, and clears it. A pass takes it before it reads the
  // caches: a change made meanwhile is in the caches or in the next call, never lost.
  InputChanges take_changes();
  // Something the caches do not hold changed (the tunnel prober's verdict): counted among
  // `others`, so the pass it queues is a full one.
  void changed_elsewhere() { changed(false); }

 private:
  void changed(bool nat_mapping);

  std::string node_name_;
  std::string tunnel_interface_;
  std::vector<std::unique_ptr<kube::Informer>> informers_;
  kube::Informer* nodes_ = nullptr;
  kube::Informer* peerings_ = nullptr;
  kube::Informer* nat_mappings_ = nullptr;
  kube::Informer* config_ = nullptr;
  // inputs() is const for its callers; the cache only saves work.
  std::unique_ptr<NatMappingParseCache> parsed_nat_ = std::make_unique<NatMappingParseCache>();
  mutable std::mutex mu_;
  InputChanges changes_;
  std::map<std::string, LoadedNatMapping> loaded_nat_;
  std::function<void()> on_change_;
};

}  // namespace fed::federation

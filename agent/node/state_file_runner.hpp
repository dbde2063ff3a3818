#pragma once
// `fed-agent node --state-file FILE`: the node datapath fed by a file instead of the API (netns
// tests, debugging, nodes outside a federation), as a role with the health server and signals
// of every other role. The datapath loop is run_node_datapath's, on a thread of its own.

#include <atomic>
#include <thread>

#include "agent/node/fabric/node_datapath.hpp"
#include "agent/roles/role_runner.hpp"

namespace fed::fabric {

class StateFileNodeRunner final : public agent::RoleRunner {
 public:
  explicit StateFileNodeRunner(NodeOptions options) : options_(std::move(options)) {}
  ~StateFileNodeRunner() override { stop(); }

  agent::Role role() const override { return agent::Role::Node; }
  Status start(const agent::RoleContext& ctx) override;
  // Ready while the loop runs; an invalid state is waited out by the loop, a kernel failure
  // ends it and makes the role unready.
  bool ready() const override { return running_.load(); }
  void stop() override;

 private:
  NodeOptions options_;
  std::jthread loop_;
  std::atomic<bool> running_{false};
};

}  // namespace fed::fabric

// Which pass the gateway's datapath loop runs after a change (agent/node/node_runner.cpp): the
// DNAT maps alone only when nothing but NatMappings changed since a pass that converged.
#include <doctest/doctest.h>

#include "agent/node/api_state_source.hpp"

using fed::federation::InputChanges;
using fed::federation::mappings_only_pass;

TEST_CASE("a NatMapping change after a converged pass gets the maps' transaction alone") {
  CHECK(mappings_only_pass(InputChanges{true, false}, true, false, false));
}

TEST_CASE("anything else, or a pass owed for another reason, is a full pass") {
  const InputChanges nat{true, false};
  CHECK_FALSE(mappings_only_pass(InputChanges{true, true}, true, false, false));   // and a Peering
  CHECK_FALSE(mappings_only_pass(InputChanges{false, true}, true, false, false));  // a Node only
  CHECK_FALSE(mappings_only_pass(InputChanges{}, true, false, false));  // a requeue, a verdict
  CHECK_FALSE(mappings_only_pass(nat, false, false, false));  // the last pass failed, or none yet
  CHECK_FALSE(mappings_only_pass(nat, true, true, false));    // a handshake to report
  CHECK_FALSE(mappings_only_pass(nat, true, false, true));    // the resync is due
}

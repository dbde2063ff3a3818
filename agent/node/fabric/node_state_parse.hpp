#pragma once
// Reading a NodeNetworkState from YAML or JSON (the --state-file format, documented in
// docs/DATAPATH.md). Unknown fields, bad addresses and inconsistent ranges are Invalid errors
// that name the field.

#include <string_view>

#include "agent/node/fabric/node_state.hpp"
#include "shared/result/result.hpp"

namespace fed::fabric {

// Parses and validates (validate_node_state) a state document.
Result<NodeNetworkState> parse_node_state(std::string_view text);

// Checks the cross-field rules: nodes and peers exist, remaps keep prefix lengths, no two
// ranges overlap, mappings fall in their ranges, chain names do not collide.
Status validate_node_state(const NodeNetworkState& state);

}  // namespace fed::fabric

#pragma once
// The repeatable --selector flag of `offload` and `replicate`: each occurrence is one
// NodeSelector term over virtual-node labels in label-selector syntax ("region in (eu),tier!=spot",
// requirements ANDed), the terms ORed, checked as the manager checks them. Pure.

#include <string>
#include <vector>

#include "shared/fedapi/node_selector.hpp"
#include "shared/result/result.hpp"

namespace fed::plugin {

// The NodeSelector of the --selector values, one term each, in order. Invalid naming the flag's
// index and text ("--selector[1] \"region in (eu\": ...") for a malformed or empty term.
Result<fedapi::NodeSelector> node_selector_from_flags(const std::vector<std::string>& selectors);

}  // namespace fed::plugin

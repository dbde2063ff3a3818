#pragma once
// The CNI switch (seed 003's network-plugin reconfiguration, made reversible): a CNI network
// configuration list is installed beside the node's current ones under a name that sorts
// first, which is the file the container runtime uses for new pods; the old files stay, so
// removing ours is the rollback. This is the check both sides run on the list before a node
// is touched, and the address ranges a new pod's IP must come from. Pure.

#include <string>
#include <string_view>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::reconfig {

// Sorts before the usual 10-*.conflist names: the runtime loads the first file in name order.
inline constexpr std::string_view kCniFileName = "00-kubectl-fed.conflist";

struct CniConflist {
  std::string name;                       // the network's name
  std::vector<std::string> plugin_types;  // in chain order
  std::vector<std::string> subnets;       // host-local IPAM subnets of its plugins, if any
};

// Parses `text` as a CNI network configuration list (.conflist): a JSON object with cniVersion,
// a name and a non-empty plugins array whose entries each have a type. Invalid names `source`,
// the field and the fix.
Result<CniConflist> parse_conflist(std::string_view text, std::string_view source);

}  // namespace fed::reconfig

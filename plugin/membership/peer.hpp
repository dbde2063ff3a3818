#pragma once
// kubectl fed peer A B [--remove] [--wait]: a direct (mesh) link between two joined members,
// beside their links to the host: a DirectPeering on the host, which the manager turns into a
// Peering on each member (docs/JOIN.md). Idempotent: peering again says "already peered".

#include <chrono>
#include <string>

#include "plugin/cli/command.hpp"

namespace fed::plugin {

struct PeerOptions {
  std::string a, b;     // the two members
  bool remove = false;  // --remove: tear the link down
  bool wait = false;    // --wait: until Ready (or, with --remove, gone)
  std::chrono::milliseconds timeout{std::chrono::minutes(3)};
};

// Invalid, naming the argument, unless A and B are two different DNS labels.
Status validate_peer_args(const PeerOptions& options);
// The DirectPeering's name: the two ids in order, joined by a dot ("c2.c3").
std::string direct_peering_name(const std::string& a, const std::string& b);
Status run_peer(const GlobalOptions& global, const PeerOptions& options, Output& out);

extern const Command kPeerCommand;

}  // namespace fed::plugin

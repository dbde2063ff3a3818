#include "cmd/commands.hpp"

#include "cmd/completion.hpp"
#include "cmd/etcd.hpp"
#include "cmd/init.hpp"
#include "cmd/join.hpp"
#include "cmd/offload.hpp"
#include "cmd/peer.hpp"
#include "cmd/reconfigure.hpp"
#include "cmd/replicate.hpp"
#include "cmd/status.hpp"
#include "cmd/unjoin.hpp"
#include "cmd/version.hpp"

namespace fed::plugin {

const std::vector<const Command*>& commands() {
  // Explicit wiring, sorted by name. One line per verb.
  static const std::vector<const Command*> kCommands = {
      &kCompletionCommand, &kEtcdCommand,   &kInitCommand,        &kJoinCommand,
      &kOffloadCommand,    &kPeerCommand,   &kReconfigureCommand, &kReplicateCommand,
      &kStatusCommand,     &kUnjoinCommand, &kUnoffloadCommand,   &kUnreplicateCommand,
      &kVersionCommand,
  };
  return kCommands;
}

const Command* find_command(std::string_view name) {
  for (const Command* c : commands()) {
    if (c->name == name) return c;
  }
  return nullptr;
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const Command* c : commands()) names.emplace_back(c->name);
  return names;
}

}  // namespace fed::plugin

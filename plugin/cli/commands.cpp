#include "plugin/cli/commands.hpp"

#include "plugin/cli/completion.hpp"
#include "plugin/cli/version.hpp"
#include "plugin/etcd/etcd.hpp"
#include "plugin/host/host.hpp"
#include "plugin/membership/init.hpp"
#include "plugin/membership/join.hpp"
#include "plugin/membership/peer.hpp"
#include "plugin/membership/status.hpp"
#include "plugin/membership/unjoin.hpp"
#include "plugin/offload/offload.hpp"
#include "plugin/reconfigure/reconfigure.hpp"
#include "plugin/replicate/replicate.hpp"

namespace fed::plugin {

const std::vector<const Command*>& commands() {
  // Explicit wiring, sorted by name. One line per verb.
  static const std::vector<const Command*> kCommands = {
      &kCompletionCommand,  &kEtcdCommand,    &kHostCommand,   &kInitCommand,
      &kJoinCommand,        &kOffloadCommand, &kPeerCommand,   &kReconfigureCommand,
      &kReplicateCommand,   &kStatusCommand,  &kUnjoinCommand, &kUnoffloadCommand,
      &kUnreplicateCommand, &kVersionCommand,
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

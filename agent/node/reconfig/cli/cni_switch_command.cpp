#include "agent/node/reconfig/cli/cni_switch_command.hpp"

#include <iostream>

#include "agent/node/reconfig/cni_switch.hpp"
#include "shared/reconfig/cni_conflist.hpp"

namespace fed::reconfig {

CniSwitchCommand::CniSwitchCommand(CLI::App& command) : app_(&command) {
  app_->add_option("--node", node_, "This node's name (for the result line)")->required();
  app_->add_option("--cni-conf-dir", conf_dir_,
                   "The container runtime's CNI config directory (e.g. /etc/cni/net.d)")
      ->required();
  app_->add_option("--conflist", conflist_,
                   "The .conflist's JSON text, installed as " + std::string(kCniFileName));
  app_->add_flag("--rollback", rollback_, "Remove " + std::string(kCniFileName) + " instead");
}

int CniSwitchCommand::run(const agent::AgentOptions&) {
  const auto fail = [](const Error& e) {
    std::cerr << "fed-agent cni-switch: " << e.message() << "\n";
    return e.code() == ErrorCode::Invalid ? 2 : 1;
  };
  if (rollback_ == !conflist_.empty()) {
    return fail(Error(ErrorCode::Invalid, "give exactly one of --conflist JSON and --rollback"));
  }
  const std::filesystem::path path = std::filesystem::path(conf_dir_) / kCniFileName;
  if (rollback_) {
    auto removed = remove_conflist(conf_dir_);
    if (!removed) return fail(removed.error());
    std::cout << node_ << ": "
              << (*removed == CniSwitchOutcome::AlreadyRemoved ? "already applied" : "applied")
              << " rollback: " << path.string() << " removed\n";
    return 0;
  }
  auto installed = install_conflist(conf_dir_, conflist_);
  if (!installed) return fail(installed.error());
  const auto list = parse_conflist(conflist_, "--conflist");
  std::cout << node_ << ": "
            << (*installed == CniSwitchOutcome::AlreadyInstalled ? "already applied" : "applied")
            << " network " << list->name << " (" << path.string() << ")\n";
  return 0;
}

}  // namespace fed::reconfig

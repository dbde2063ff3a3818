#pragma once
// `fed-agent cni-switch`: one node's CNI switch (reconfig/cni_switch.hpp), run once and exit —
// what `kubectl fed reconfigure --cni-conflist` runs on each node in a pod.

#include <string>

#include <CLI/CLI.hpp>

namespace fed::reconfig {

class CniSwitchCommand final {
 public:
  explicit CniSwitchCommand(CLI::App& parent);
  CniSwitchCommand(const CniSwitchCommand&) = delete;
  CniSwitchCommand& operator=(const CniSwitchCommand&) = delete;

  bool parsed() const { return app_->parsed(); }
  // 0 installed or removed (or already so), 1 the write failed, 2 bad input (nothing changed).
  int run() const;

 private:
  CLI::App* app_;
  std::string node_, conf_dir_, conflist_;
  bool rollback_ = false;
};

}  // namespace fed::reconfig

#pragma once
// `fed-agent podpreset`'s flags (manifests/features/podpreset/deployment.yaml sets them).

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "roles/role_runner.hpp"

namespace fed::podpreset {

class PodPresetCommand final {
 public:
  explicit PodPresetCommand(CLI::App& app);
  PodPresetCommand(const PodPresetCommand&) = delete;
  PodPresetCommand& operator=(const PodPresetCommand&) = delete;

  bool parsed() const { return command_->parsed(); }
  std::unique_ptr<agent::RoleRunner> runner() const;

 private:
  CLI::App* command_;
  std::string bind_address, cert_dir;
};

}  // namespace fed::podpreset

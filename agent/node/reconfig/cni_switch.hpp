#pragma once
// The node side of the CNI switch (docs/RECONFIGURE.md, CNI switch): installs a network
// configuration list as kCniFileName in the runtime's CNI config directory, where its name
// sorts first so that new pods get their network from it, or removes it again (rollback). The
// node's other files are never renamed or edited, so the rollback is exact. Writes are atomic
// and durable (a crash leaves the old or the new file); repeating a step is a no-op.

#include <filesystem>
#include <string>

#include "shared/result/result.hpp"

namespace fed::reconfig {

enum class CniSwitchOutcome { Installed, AlreadyInstalled, Removed, AlreadyRemoved };

// Writes `conflist` (checked with parse_conflist first: Invalid changes nothing) to
// `conf_dir`/kCniFileName unless it already holds exactly that text. `conf_dir` must exist.
Result<CniSwitchOutcome> install_conflist(const std::filesystem::path& conf_dir,
                                          const std::string& conflist);

// Removes `conf_dir`/kCniFileName, if there.
Result<CniSwitchOutcome> remove_conflist(const std::filesystem::path& conf_dir);

}  // namespace fed::reconfig

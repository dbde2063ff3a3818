#include "agent/node/reconfig/cni_switch.hpp"

#include <system_error>

#include "shared/reconfig/cni_conflist.hpp"
#include "shared/util/read_file.hpp"
#include "shared/util/write_file_atomic.hpp"

namespace fed::reconfig {
namespace {

Status check_dir(const std::filesystem::path& conf_dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(conf_dir, ec)) {
    return Error(ErrorCode::Invalid,
                 conf_dir.string() +
                     " is not a directory: give the container runtime's CNI config directory "
                     "(containerd's plugins.cri.cni.conf_dir, /etc/cni/net.d by default)");
  }
  return ok();
}

}  // namespace

Result<CniSwitchOutcome> install_conflist(const std::filesystem::path& conf_dir,
                                          const std::string& conflist) {
  FED_TRY(parse_conflist(conflist, "the network configuration list"));
  FED_TRY(check_dir(conf_dir));
  const auto path = conf_dir / kCniFileName;
  if (auto current = util::read_file(path); current && *current == conflist) {
    return CniSwitchOutcome::AlreadyInstalled;
  }
  FED_TRY(util::write_file_atomic(path, conflist, 0644));
  return CniSwitchOutcome::Installed;
}

Result<CniSwitchOutcome> remove_conflist(const std::filesystem::path& conf_dir) {
  FED_TRY(check_dir(conf_dir));
  const auto path = conf_dir / kCniFileName;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return CniSwitchOutcome::AlreadyRemoved;
  FED_TRY(util::remove_file_durable(path));
  return CniSwitchOutcome::Removed;
}

}  // namespace fed::reconfig

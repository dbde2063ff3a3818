#include "agent/node/reconfig/kubelet_restart.hpp"

#include "agent/node/reconfig/kubelet_process.hpp"
#include "shared/util/strings.hpp"
#include "shared/util/subprocess.hpp"

namespace fed::reconfig {

Result<RestartMethod> parse_restart_method(std::string_view text) {
  if (text == "systemd") return RestartMethod::Systemd;
  if (text == "k3s") return RestartMethod::K3s;
  if (text == "supervisor") return RestartMethod::Supervisor;
  if (text == "command") return RestartMethod::Command;
  return Error(ErrorCode::Invalid, "--restart-method " + std::string(text) +
                                       ": one of systemd, k3s, supervisor, command");
}

std::vector<std::string> restart_argv(const RestartSpec& spec) {
  if (spec.method == RestartMethod::Command) return spec.command;
  if (spec.method == RestartMethod::Supervisor) return {};
  // The agent's pod has hostPID: PID 1 is the host's init, whose namespaces hold systemd.
  return {"nsenter", "-t", "1",  "-m",        "-u",      "-i",
          "-n",      "-p", "--", "systemctl", "restart", spec.service};
}

Status restart_kubelet(const RestartSpec& spec) {
  if (spec.method == RestartMethod::Supervisor) return restart_through_supervisor(spec.timeout);
  util::SubprocessOptions options;
  options.argv = restart_argv(spec);
  if (options.argv.empty()) {
    return Error(ErrorCode::Invalid,
                 "--restart-command is empty; give the command that restarts "
                 "the kubelet");
  }
  options.stderr_mode = util::StderrMode::Capture;
  options.timeout = spec.timeout;
  const std::string shown = util::join(options.argv, " ");
  FED_ASSIGN_OR_RETURN(auto result, util::run_subprocess(options));
  if (result.succeeded()) return ok();
  std::string tail(util::trim(result.stderr_data));
  if (tail.size() > 400) tail = "..." + tail.substr(tail.size() - 400);
  return Error(ErrorCode::Unavailable, "restarting the kubelet with `" + shown + "` " +
                                           result.describe() + (tail.empty() ? "" : ": " + tail));
}

}  // namespace fed::reconfig

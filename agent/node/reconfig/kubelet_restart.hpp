#pragma once
// Restarting the kubelet so it reads its new configuration. The agent runs in a pod (or, in
// tests, beside the testbed), so the method is configurable: systemd in the host's namespaces
// (nsenter into PID 1), the k3s service (k3s runs the kubelet in its own process), stopping the
// kubelet for its supervisor to start again, or an explicit command. Nothing runs in a shell.

#include <chrono>
#include <string>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::reconfig {

enum class RestartMethod { Systemd, K3s, Supervisor, Command };

struct RestartSpec {
  RestartMethod method = RestartMethod::Systemd;
  std::string service = "kubelet";   // the unit for Systemd and K3s ("k3s" or "k3s-agent")
  std::vector<std::string> command;  // argv for Command
  std::chrono::seconds timeout{120};
};

// Parses --restart-method: systemd, k3s, supervisor or command. Invalid names the flag and the
// choices.
Result<RestartMethod> parse_restart_method(std::string_view text);

// The argv that restarts the kubelet: for systemd and k3s,
// nsenter -t 1 -m -u -i -n -p -- systemctl restart SERVICE; empty for Supervisor. Pure.
std::vector<std::string> restart_argv(const RestartSpec& spec);

// Runs it and waits; an error quotes the command, how it ended and the end of its stderr.
Status restart_kubelet(const RestartSpec& spec);

}  // namespace fed::reconfig

#pragma once
// The kubelet of the node this agent runs on, found among the host's processes (the agent's pod
// has hostPID): the one in the agent's own network namespace (hostNetwork). A machine that runs
// several nodes (kind, the testbed) has several kubelets; only this node's shares its network.
// Its command line says where its files are, and /proc/PID/root reaches them in its own mount
// namespace, so the agent needs no hostPath guess.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "shared/raii/fd.hpp"
#include "shared/reconfig/kubelet_locations.hpp"
#include "shared/result/result.hpp"

namespace fed::reconfig {

struct KubeletProcess {
  pid_t pid = 0;
  KubeletFlags flags;                  // --config, --config-dir, --root-dir
  std::optional<std::string> systemd;  // its systemd unit ("kubelet.service"), from its cgroup
};

// The running kubelet of this node. NotFound when none runs in this network namespace;
// Invalid when several do (the message lists them). `proc` is /proc (tests pass another).
Result<KubeletProcess> find_node_kubelet(const std::filesystem::path& proc = "/proc");

// Whether process `pid` has ended (gone, or a zombie not reaped yet).
bool process_ended(pid_t pid, const std::filesystem::path& proc = "/proc");

// A handle on process `pid`'s root directory (in its mount namespace). It stays valid after the
// process exits, so files reached through it survive a kubelet restart.
Result<Fd> open_process_root(pid_t pid);

// The path under which a handle's directory is reached: /proc/self/fd/N.
std::filesystem::path handle_path(const Fd& root);

// Stops the kubelet (SIGTERM, SIGKILL after `stop_grace`) and waits up to `timeout` for its
// supervisor (systemd's Restart=, a container's restart policy, the testbed's loop) to start
// a new one in this network namespace. A kubelet not running (one that refused its config
// exits, and its supervisor keeps starting it) is only waited for. Unavailable, naming the
// pid, when none comes.
Status restart_through_supervisor(std::chrono::seconds timeout,
                                  std::chrono::seconds stop_grace = std::chrono::seconds(30));

}  // namespace fed::reconfig

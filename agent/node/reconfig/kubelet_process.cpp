#include "agent/node/reconfig/kubelet_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "shared/util/read_file.hpp"
#include "shared/util/strings.hpp"

namespace fed::reconfig {
namespace {

namespace fs = std::filesystem;
using std::chrono::steady_clock;

struct NsId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const NsId&) const = default;
};

std::optional<NsId> netns_of(const fs::path& proc_entry) {
  struct stat st {};
  if (::stat((proc_entry / "ns/net").c_str(), &st) != 0) return std::nullopt;
  return NsId{st.st_dev, st.st_ino};
}

// The kubelets of this network namespace, by their command name.
std::vector<pid_t> kubelets_here(const fs::path& proc, const NsId& self) {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto comm = util::read_file(entry.path() / "comm");
    if (!comm || util::trim(*comm) != "kubelet") continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (netns_of(entry.path()) == self && !process_ended(pid, proc)) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

Result<NsId> own_netns(const fs::path& proc) {
  auto self = netns_of(proc / "self");
  if (!self) {
    return Error(ErrorCode::Internal,
                 "reading " + (proc / "self/ns/net").string() + ": " + std::strerror(errno));
  }
  return *self;
}

}  // namespace

bool process_ended(pid_t pid, const fs::path& proc) {
  auto stat = util::read_file(proc / std::to_string(pid) / "stat");
  if (!stat) return true;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, the state follows the last ')'.
  const auto close = stat->rfind(')');
  return close == std::string::npos || close + 2 >= stat->size() || (*stat)[close + 2] == 'Z' ||
         (*stat)[close + 2] == 'X';
}

Result<KubeletProcess> find_node_kubelet(const fs::path& proc) {
  FED_ASSIGN_OR_RETURN(const NsId self, own_netns(proc));
  const std::vector<pid_t> pids = kubelets_here(proc, self);
  if (pids.empty()) {
    return Error(ErrorCode::NotFound,
                 "no kubelet process runs in this node's network namespace (the agent needs "
                 "hostPID and hostNetwork); give --kubelet-config PATH or --distribution NAME");
  }
  if (pids.size() > 1) {
    std::vector<std::string> shown;
    for (pid_t p : pids) shown.push_back(std::to_string(p));
    return Error(ErrorCode::Invalid,
                 "several kubelet processes share this network namespace (pids " +
                     util::join(shown, ", ") + "); give --kubelet-config PATH for this node's");
  }
  KubeletProcess kubelet;
  kubelet.pid = pids.front();
  const fs::path entry = proc / std::to_string(kubelet.pid);
  FED_ASSIGN_OR_RETURN(const std::string cmdline, util::read_file(entry / "cmdline"));
  kubelet.flags = parse_kubelet_cmdline(cmdline);
  if (auto cgroup = util::read_file(entry / "cgroup")) kubelet.systemd = systemd_unit_of(*cgroup);
  return kubelet;
}

Result<Fd> open_process_root(pid_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/root";
  Fd fd(::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) {
    return Error(errno == EACCES || errno == EPERM ? ErrorCode::Permission : ErrorCode::Internal,
                 "opening " + path + " (the kubelet's files): " + std::strerror(errno) +
                     "; the agent needs a privileged pod with hostPID");
  }
  return fd;
}

fs::path handle_path(const Fd& root) {
  return fs::path("/proc/self/fd") / std::to_string(root.get());
}

Status restart_through_supervisor(std::chrono::seconds timeout, std::chrono::seconds stop_grace) {
  FED_ASSIGN_OR_RETURN(const NsId self, own_netns("/proc"));
  const auto poll = std::chrono::milliseconds(200);
  std::optional<pid_t> old;
  if (auto found = find_node_kubelet(); found) {
    old = found->pid;
  } else if (found.error().code() != ErrorCode::NotFound) {
    return found.error();
  }
  // None running: a kubelet that refused its config exits, and its supervisor keeps starting
  // it again; the next one it starts reads the file as it is now, which is all a restart is.
  const std::string who =
      old ? "the kubelet (pid " + std::to_string(*old) + ")" : "the kubelet (not running)";
  if (old) {
    if (::kill(*old, SIGTERM) != 0 && errno != ESRCH) {
      return Error(ErrorCode::Permission, "stopping " + who + ": " + std::strerror(errno));
    }
    auto deadline = steady_clock::now() + stop_grace;
    while (!process_ended(*old)) {
      if (steady_clock::now() >= deadline) {
        ::kill(*old, SIGKILL);
        deadline = steady_clock::now() + std::chrono::seconds(5);
      }
      std::this_thread::sleep_for(poll);
    }
  }
  const auto deadline = steady_clock::now() + timeout;
  while (steady_clock::now() < deadline) {
    for (pid_t pid : kubelets_here("/proc", self)) {
      if (!old || pid != *old) return ok();
    }
    std::this_thread::sleep_for(poll);
  }
  return Error(ErrorCode::Unavailable,
               who + (old ? " stopped and nothing" : ": nothing") + " started it again within " +
                   std::to_string(timeout.count()) +
                   "s: it runs in no systemd unit and no supervisor restarts it; give "
                   "--restart-command");
}

}  // namespace fed::reconfig

#include "agent/node/os/linux/wireguard_go_daemon.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "agent/node/os/linux/uapi_socket.hpp"
#include "shared/util/strings.hpp"
#include "shared/util/subprocess.hpp"

namespace fed::os {
namespace {

using Clock = std::chrono::steady_clock;

// The arguments of /proc/<pid>/cmdline; empty when the process is gone or unreadable.
std::vector<std::string> cmdline_of(const std::filesystem::path& proc_dir) {
  std::ifstream f(proc_dir / "cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (raw.empty()) return {};
  if (raw.back() == '\0') raw.pop_back();
  return util::split(raw, '\0');
}

// Whether /proc/<pid> is gone or a zombie (exited, waiting for its parent to reap it).
bool exited(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (stat.empty()) return true;
  const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] == 'Z' ||
         stat[paren + 2] == 'X';
}

// The network namespace behind `ns_file` (/proc/<pid>/ns/net), as device and inode; none when
// it cannot be read (the process is gone).
std::optional<std::pair<dev_t, ino_t>> netns_of(const std::string& ns_file) {
  struct stat st {};
  if (::stat(ns_file.c_str(), &st) != 0) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

}  // namespace

std::string WireguardGoDaemon::socket_path(std::string_view interface) const {
  return settings_.socket_dir + "/" + std::string(interface) + ".sock";
}

Result<bool> WireguardGoDaemon::running(std::string_view interface) {
  auto sock = UapiSocket::connect(socket_path(interface), settings_.uapi_timeout);
  if (sock) return true;
  const auto code = sock.error().code();
  if (code == ErrorCode::NotFound || code == ErrorCode::Unavailable) return false;
  return Unexpected(sock.error());
}

Status WireguardGoDaemon::start(std::string_view interface) {
  // wireguard-go detaches by re-running itself with WG_PROCESS_FOREGROUND=1 appended to its
  // environment, and Go reads the first of duplicate variables: an inherited (or overridden)
  // WG_PROCESS_FOREGROUND would make it stay in the foreground or, set empty, re-run itself
  // without end. It cannot be removed from the child's environment here, so refuse it.
  if (std::getenv("WG_PROCESS_FOREGROUND") != nullptr) {
    return fail(ErrorCode::Invalid,
                "WG_PROCESS_FOREGROUND is set in the agent's environment; unset it, so "
                "wireguard-go can detach");
  }
  util::SubprocessOptions opts;
  opts.argv = {settings_.program, std::string(interface)};
  // With LOG_LEVEL set, the detached daemon would keep our stderr pipe open and this call would
  // wait for it to exit; empty, it writes to /dev/null once detached.
  opts.env = {{"LOG_LEVEL", ""}};
  opts.stderr_mode = util::StderrMode::Capture;
  opts.timeout = settings_.start_timeout;
  auto run = util::run_subprocess(opts);
  if (!run) {
    return Unexpected(
        run.error().with_context("start " + settings_.program + " for " + std::string(interface) +
                                 " (install Debian's wireguard-go, or set the program's path)"));
  }
  if (!run->succeeded()) {
    std::string out = std::string(util::trim(run->stdout_data + "\n" + run->stderr_data));
    return fail(ErrorCode::Unavailable, settings_.program + " " + std::string(interface) + " " +
                                            run->describe() + (out.empty() ? "" : ": " + out) +
                                            " (it needs root and /dev/net/tun: modprobe tun)");
  }
  // The daemon listens before it detaches; wait anyway in case a wrapper script returns early.
  const auto deadline = Clock::now() + settings_.start_timeout;
  while (true) {
    FED_ASSIGN_OR_RETURN(bool up, running(interface));
    if (up) return ok();
    if (Clock::now() >= deadline) {
      return fail(ErrorCode::Unavailable, settings_.program + " " + std::string(interface) +
                                              " exited successfully but nothing listens on " +
                                              socket_path(interface) +
                                              "; is socket_dir where it puts its socket?");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Result<std::string> WireguardGoDaemon::exchange(std::string_view interface,
                                                std::string_view request) {
  FED_ASSIGN_OR_RETURN(auto sock,
                       UapiSocket::connect(socket_path(interface), settings_.uapi_timeout));
  return sock.exchange(request);
}

Status WireguardGoDaemon::stop(std::string_view interface) {
  // wireguard-go keeps no pid file, and the UAPI socket's peer credentials name the process
  // that created it, which exits when it detaches: find the daemon by its command line
  // ("wireguard-go <interface>") among the processes of the calling thread's network
  // namespace. Others of that name are not ours: gateways sharing a PID namespace (hostPID
  // pods, the testbed's nodes) each run theirs, with the socket in their own mount namespace.
  const std::string program = std::filesystem::path(settings_.program).filename();
  const auto own_netns = netns_of("/proc/thread-self/ns/net");
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto args = cmdline_of(entry.path());
    if (args.size() < 2 || std::filesystem::path(args.front()).filename() != program ||
        args.back() != interface) {
      continue;
    }
    if (own_netns && netns_of(entry.path() / "ns" / "net") != own_netns) continue;
    pids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  if (ec) return fail(ErrorCode::Internal, "list /proc to find " + program + ": " + ec.message());

  for (pid_t pid : pids) ::kill(pid, SIGTERM);  // it removes its TUN link and socket on exit
  const auto deadline = Clock::now() + settings_.stop_timeout;
  for (pid_t pid : pids) {
    while (!exited(pid) && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited(pid)) ::kill(pid, SIGKILL);
  }
  const std::string path = socket_path(interface);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return fail(ErrorCode::Internal, "remove WireGuard UAPI socket " + path + ": " +
                                         std::strerror(errno) + "; remove it by hand");
  }
  return ok();
}

}  // namespace fed::os

#include "agent/roles/process_image.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

extern char** environ;

namespace fed::agent {
namespace {

constexpr std::string_view kIncarnationVariable = "FED_AGENT_INCARNATION";

// Written once by main before any thread exists, read only after.
std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}

// Marks every descriptor from 3 on close-on-exec. close_range(CLOSE_RANGE_CLOEXEC) does it in
// one call (Linux 5.11); older kernels get the same from /proc/self/fd. Not closing them here:
// other threads still use them until the exec ends those threads.
void close_on_exec_from_3() {
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    const int fd = std::atoi(entry->d_name);
    if (fd < 3 || fd == own) continue;
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  ::closedir(dir);
}

}  // namespace

void remember_command_line(int argc, char** argv) {
  command_line().assign(argv, argv + argc);
}

int process_incarnation() {
  const char* value = std::getenv(std::string(kIncarnationVariable).c_str());
  return value == nullptr ? 0 : std::atoi(value);
}

void replace_process_image() {
  const auto& args = command_line();
  if (args.empty()) {
    spdlog::critical("fed-agent: no command line to run again: exiting");
    spdlog::default_logger()->flush();
    std::_Exit(1);
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The environment as it is, the incarnation counted up (setenv is not safe beside the
  // threads still running; a copy is).
  const std::string prefix = std::string(kIncarnationVariable) + "=";
  const std::string incarnation = prefix + std::to_string(process_incarnation() + 1);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with(prefix)) envp.push_back(*e);
  }
  envp.push_back(const_cast<char*>(incarnation.c_str()));
  envp.push_back(nullptr);
  close_on_exec_from_3();
  spdlog::default_logger()->flush();
  ::execve("/proc/self/exe", argv.data(), envp.data());
  spdlog::critical("fed-agent: running its own binary again failed ({}): exiting",
                   std::strerror(errno));
  spdlog::default_logger()->flush();
  std::_Exit(1);
}

}  // namespace fed::agent

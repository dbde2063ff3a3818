#include "shared/util/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

#include "shared/raii/cleanup.hpp"
#include "shared/raii/fd.hpp"

extern char** environ;  // NOLINT: POSIX

namespace fed::util {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  Fd read;
  Fd write;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return fail(ErrorCode::Internal, fmt::format("pipe2 failed: {}", std::strerror(errno)));
  }
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

std::string_view env_name(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

// Our environment minus the overridden names, then the additions (the last of a name wins).
std::vector<std::string> build_env(const std::vector<std::pair<std::string, std::string>>& add) {
  auto added_later = [&](std::string_view name, std::size_t after) {
    for (std::size_t i = after; i < add.size(); ++i) {
      if (add[i].first == name) return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!added_later(env_name(*e), 0)) out.emplace_back(*e);
  }
  for (std::size_t i = 0; i < add.size(); ++i) {
    if (!added_later(add[i].first, i + 1)) out.push_back(add[i].first + "=" + add[i].second);
  }
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Unexpected spawn_error(int err, const std::string& program) {
  const bool has_path = program.find('/') != std::string::npos;
  switch (err) {
    case ENOENT:
      return fail(ErrorCode::NotFound,
                  has_path ? fmt::format("cannot run \"{}\": no such file", program)
                           : fmt::format("cannot run \"{}\": command not found on PATH", program));
    case EACCES:
    case EPERM:
      return fail(ErrorCode::Permission,
                  fmt::format("cannot run \"{}\": permission denied (is it executable?)", program));
    case ENOEXEC:
      return fail(ErrorCode::Invalid,
                  fmt::format("cannot run \"{}\": not an executable (missing #! line?)", program));
    default:
      return fail(ErrorCode::Internal,
                  fmt::format("cannot run \"{}\": {}", program, std::strerror(err)));
  }
}

// Spawns options.argv with `actions`: no blocked signals, default handlers, and with
// `own_group` its own process group. Returns the child's pid.
Result<pid_t> spawn_with(const SubprocessOptions& options, posix_spawn_file_actions_t& actions,
                         bool own_group) {
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  Cleanup destroy_attr([&] { ::posix_spawnattr_destroy(&attr); });
  // The child starts with no blocked signals and default handlers for the ones a server
  // commonly ignores (SIGPIPE), whatever this process did with them.
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t none;
  ::sigemptyset(&none);
  ::posix_spawnattr_setsigmask(&attr, &none);
  sigset_t defaults;
  ::sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) ::sigaddset(&defaults, s);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  if (own_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    ::posix_spawnattr_setpgroup(&attr, 0);
  }
  ::posix_spawnattr_setflags(&attr, flags);

  std::vector<std::string> argv_strings = options.argv;
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<std::string> env_strings = build_env(options.env);
  std::vector<char*> envp = c_strings(env_strings);
  const std::string& program = options.argv.front();
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  if (rc != 0) return spawn_error(rc, program);
  return pid;
}

// Waits for `pid`, giving up at `deadline`; returns false on timeout.
bool wait_until(pid_t pid, int& status, Clock::time_point deadline) {
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) {
      status = 0;  // ECHILD: someone else reaped it (SIGCHLD ignored); nothing more to learn
      return true;
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - Clock::now()));
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

void wait_blocking(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = 0;
      return;
    }
  }
}

}  // namespace

std::string SubprocessResult::describe() const {
  if (timed_out) return "timed out";
  if (signal != 0) {
    const char* abbrev = ::sigabbrev_np(signal);
    return abbrev != nullptr ? fmt::format("was killed by signal {}", abbrev)
                             : fmt::format("was killed by signal {}", signal);
  }
  return fmt::format("exited with code {}", exit_code);
}

Result<SubprocessResult> run_subprocess(const SubprocessOptions& options) {
  if (options.argv.empty() || options.argv.front().empty()) {
    return fail(ErrorCode::Invalid, "run_subprocess: empty command line");
  }
  const std::string& program = options.argv.front();
  const bool capture_stderr = options.stderr_mode == StderrMode::Capture;
  // Its own process group (unless it may read our terminal), so a timeout also kills whatever
  // it started.
  const bool own_group = options.stdin_mode == StdinMode::Null;

  FED_ASSIGN_OR_RETURN(Pipe out, make_pipe());
  Pipe err;
  if (capture_stderr) {
    FED_ASSIGN_OR_RETURN(err, make_pipe());
  }

  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  Cleanup destroy_actions([&] { ::posix_spawn_file_actions_destroy(&actions); });
  if (options.stdin_mode == StdinMode::Null) {
    ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  ::posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
  if (capture_stderr) {
    ::posix_spawn_file_actions_adddup2(&actions, err.write.get(), 2);
  } else if (options.stderr_mode == StderrMode::Null) {
    ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }

  FED_ASSIGN_OR_RETURN(const pid_t pid, spawn_with(options, actions, own_group));
  out.write.reset();
  err.write.reset();

  bool reaped = false;
  const pid_t kill_target = own_group ? -pid : pid;
  // Never leave a zombie or a runaway child behind, whatever path we leave by.
  Cleanup reap([&] {
    if (reaped) return;
    ::kill(kill_target, SIGKILL);
    int ignored = 0;
    wait_blocking(pid, ignored);
  });

  SubprocessResult result;
  const auto deadline =
      options.timeout.count() > 0 ? Clock::now() + options.timeout : Clock::time_point::max();
  std::array<pollfd, 2> fds{{{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}}};
  std::array<std::string*, 2> sinks{&result.stdout_data, &result.stderr_data};
  std::size_t total = 0;
  std::array<char, 65536> buf;
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    int wait_ms = -1;
    if (deadline != Clock::time_point::max()) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 60'000));
    }
    const int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(ErrorCode::Internal, fmt::format("poll on the output of \"{}\" failed: {}",
                                                   program, std::strerror(errno)));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t r = ::read(fds[i].fd, buf.data(), buf.size());
      if (r > 0) {
        total += static_cast<std::size_t>(r);
        if (total > options.max_output_bytes) {
          return fail(ErrorCode::Invalid,
                      fmt::format("\"{}\" wrote more than {} bytes of output; it was stopped",
                                  program, options.max_output_bytes));
        }
        sinks[i]->append(buf.data(), static_cast<std::size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;  // EOF (or a broken pipe): stop watching it
      }
    }
  }
  out.read.reset();
  err.read.reset();

  int status = 0;
  if (!result.timed_out && !wait_until(pid, status, deadline)) result.timed_out = true;
  if (result.timed_out) {
    ::kill(kill_target, SIGKILL);
    wait_blocking(pid, status);
  }
  reaped = true;

  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

Result<int> spawn_background(const SubprocessOptions& options) {
  if (options.argv.empty() || options.argv.front().empty()) {
    return fail(ErrorCode::Invalid, "spawn_background: empty command line");
  }
  if (options.stderr_mode == StderrMode::Capture || options.stdin_mode == StdinMode::Inherit) {
    return fail(ErrorCode::Invalid,
                "spawn_background: a background child can neither capture stderr nor read stdin");
  }
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  Cleanup destroy_actions([&] { ::posix_spawn_file_actions_destroy(&actions); });
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (options.stderr_mode == StderrMode::Null) {
    ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  // Its own process group: a signal to ours (Ctrl-C on a terminal) must not stop a daemon that
  // is meant to outlive us.
  FED_ASSIGN_OR_RETURN(const pid_t pid, spawn_with(options, actions, true));
  return static_cast<int>(pid);
}

}  // namespace fed::util

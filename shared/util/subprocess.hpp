#pragma once
// Runs a program directly with posix_spawn (never through a shell), capturing its stdout
// (and optionally stderr) through pipes, with an optional timeout. Safe to call from many
// threads at once: every descriptor it opens is close-on-exec.

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "shared/result/result.hpp"

namespace fed::util {

// Where the child's stdin comes from. Inherit lets it prompt on our terminal; it then stays
// in our process group (so it may read the terminal) and a timeout kills only the child.
enum class StdinMode { Null, Inherit };

// Where the child's stderr goes.
enum class StderrMode { Inherit, Capture, Null };

struct SubprocessOptions {
  // argv[0] is the program: searched on our PATH unless it contains a '/'.
  std::vector<std::string> argv;
  // Set on top of our environment; an entry overrides an inherited variable, a later entry an
  // earlier one.
  std::vector<std::pair<std::string, std::string>> env;
  StdinMode stdin_mode = StdinMode::Null;
  StderrMode stderr_mode = StderrMode::Inherit;
  // 0 = no limit. On expiry the child (and, with StdinMode::Null, its process group) gets
  // SIGKILL and the result says timed_out.
  std::chrono::milliseconds timeout{0};
  // Output beyond this (stdout + captured stderr) kills the child and is an Invalid error.
  std::size_t max_output_bytes = std::size_t{16} << 20;
};

struct SubprocessResult {
  int exit_code = -1;       // the exit status if the program exited, else -1
  int signal = 0;           // the signal that ended it, else 0
  bool timed_out = false;   // we killed it because the timeout expired
  std::string stdout_data;  // everything it wrote to stdout
  std::string stderr_data;  // everything it wrote to stderr, with StderrMode::Capture only

  // True when it exited by itself with status 0.
  bool succeeded() const { return !timed_out && signal == 0 && exit_code == 0; }
  // "exited with code 3", "was killed by signal KILL", "timed out": for error messages.
  std::string describe() const;
};

// Spawns options.argv and waits for it. Errors only when it could not run at all (NotFound:
// no such command; Permission: not executable; Invalid: bad options or too much output);
// a non-zero exit, a signal or a timeout is reported in the result.
Result<SubprocessResult> run_subprocess(const SubprocessOptions& options);

// Starts options.argv without waiting for it (a daemon the caller supervises): stdin from
// /dev/null, stdout inherited, stderr inherited or /dev/null, in its own process group.
// Returns its pid; the caller reaps it (waitpid), or init does once the caller is gone.
// `timeout` and `max_output_bytes` do not apply.
Result<int> spawn_background(const SubprocessOptions& options);

}  // namespace fed::util

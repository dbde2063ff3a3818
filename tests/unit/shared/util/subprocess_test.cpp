#include "shared/util/subprocess.hpp"

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <string>

using fed::ErrorCode;
using fed::util::run_subprocess;
using fed::util::StderrMode;
using fed::util::SubprocessOptions;
using namespace std::chrono_literals;

namespace {

SubprocessOptions sh(const std::string& script) {
  SubprocessOptions o;
  o.argv = {"/bin/sh", "-c", script, "fed-test"};
  return o;
}

}  // namespace

TEST_CASE("run_subprocess captures stdout and the exit status, with no shell in between") {
  SubprocessOptions o;
  o.argv = {"printf", "%s|", "a b", "$HOME", "*"};  // no word splitting, expansion or globbing
  auto r = run_subprocess(o);
  REQUIRE(r.has_value());
  CHECK(r->succeeded());
  CHECK(r->exit_code == 0);
  CHECK(r->stdout_data == "a b|$HOME|*|");
  CHECK(r->describe() == "exited with code 0");

  auto failed = run_subprocess(sh("echo partial; exit 7"));
  REQUIRE(failed.has_value());
  CHECK_FALSE(failed->succeeded());
  CHECK(failed->exit_code == 7);
  CHECK(failed->stdout_data == "partial\n");
  CHECK(failed->describe() == "exited with code 7");

  auto killed = run_subprocess(sh("kill -TERM $$"));
  REQUIRE(killed.has_value());
  CHECK(killed->signal == SIGTERM);
  CHECK(killed->describe() == "was killed by signal TERM");
}

TEST_CASE("run_subprocess adds environment variables over ours and can capture stderr") {
  ::setenv("FED_SUBPROCESS_TEST", "inherited", 1);
  auto inherited = run_subprocess(sh("printf %s \"$FED_SUBPROCESS_TEST\""));
  REQUIRE(inherited.has_value());
  CHECK(inherited->stdout_data == "inherited");

  auto o = sh("printf '%s,%s' \"$FED_SUBPROCESS_TEST\" \"$FED_OTHER\"; echo oops >&2");
  o.env = {{"FED_SUBPROCESS_TEST", "first"}, {"FED_OTHER", "x"}, {"FED_SUBPROCESS_TEST", "last"}};
  o.stderr_mode = StderrMode::Capture;
  auto r = run_subprocess(o);
  ::unsetenv("FED_SUBPROCESS_TEST");
  REQUIRE(r.has_value());
  CHECK(r->stdout_data == "last,x");
  CHECK(r->stderr_data == "oops\n");

  // stdin is /dev/null by default: a read sees EOF at once instead of hanging.
  auto stdin_null = run_subprocess(sh("cat; echo done"));
  REQUIRE(stdin_null.has_value());
  CHECK(stdin_null->stdout_data == "done\n");
}

TEST_CASE("run_subprocess enforces the timeout on the child and its process group") {
  auto o = sh("sleep 30 & sleep 30; echo never");
  o.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = run_subprocess(o);
  REQUIRE(r.has_value());
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  CHECK(r->timed_out);
  CHECK_FALSE(r->succeeded());
  CHECK(r->describe() == "timed out");
  CHECK(r->stdout_data.empty());

  // A child that closes stdout but keeps running is still bounded by the timeout.
  auto closed = sh("exec >&-; sleep 30");
  closed.timeout = 200ms;
  auto c = run_subprocess(closed);
  REQUIRE(c.has_value());
  CHECK(c->timed_out);
}

TEST_CASE("run_subprocess reports commands it cannot run and runaway output") {
  SubprocessOptions missing;
  missing.argv = {"fed-no-such-command-xyz"};
  auto r = run_subprocess(missing);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code() == ErrorCode::NotFound);
  CHECK(r.error().message() == "cannot run \"fed-no-such-command-xyz\": command not found on PATH");

  missing.argv = {"/nonexistent/tool"};
  auto path = run_subprocess(missing);
  REQUIRE_FALSE(path.has_value());
  CHECK(path.error().message() == "cannot run \"/nonexistent/tool\": no such file");

  SubprocessOptions not_exec;
  not_exec.argv = {std::string(FED_SOURCE_DIR) + "/CMakeLists.txt"};
  auto perm = run_subprocess(not_exec);
  REQUIRE_FALSE(perm.has_value());
  CHECK(perm.error().code() == ErrorCode::Permission);

  CHECK_FALSE(run_subprocess(SubprocessOptions{}).has_value());

  auto flood = sh("yes");
  flood.max_output_bytes = 1 << 16;
  auto f = run_subprocess(flood);
  REQUIRE_FALSE(f.has_value());
  CHECK(f.error().code() == ErrorCode::Invalid);
  CHECK(f.error().message() == "\"/bin/sh\" wrote more than 65536 bytes of output; it was stopped");
}

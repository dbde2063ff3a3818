// The agent process holding 10 000 ExternalCIDR mappings: resident memory after converging and
// CPU while idle (resync passes included), read from /proc. Target: <= 20 MiB, <= 1 % CPU.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

#include "tests/bench/agent/node/fabric/bench_util.hpp"

using namespace fed::fabric::bench;

extern char** environ;

namespace {

long status_kib(pid_t pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);) {
    if (line.starts_with(key + ":")) return std::atol(line.c_str() + key.size() + 1);
  }
  return -1;
}

double cpu_seconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::istringstream in(s.substr(s.rfind(')') + 2));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::atoll(field.c_str());
    if (i == 15) stime = std::atoll(field.c_str());
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

bool log_has(const std::string& path, const std::string& needle) {
  std::ifstream f(path);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return s.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("agent RSS and idle CPU with 10 000 mappings") {
  REQUIRE(::geteuid() == 0);
  TempNs ns;
  std::system(("ip -n " + ns.name() + " link add wan0 type veth peer name wan1 && ip -n " +
               ns.name() + " addr add 203.0.113.1/24 dev wan0 && ip -n " + ns.name() +
               " link set wan0 up && ip -n " + ns.name() + " link set wan1 up")
                  .c_str());
  std::string state = "/tmp/" + ns.name() + ".yaml", log = "/tmp/" + ns.name() + ".log";
  std::ofstream(state) << state_yaml(gateway_state(10000));
  const char* resync = std::getenv("FED_BENCH_RESYNC");
  std::string cmd = "exec ip netns exec " + ns.name() + " " + FED_NODE_DATAPATH +
                    " -v --resync-period " + (resync ? resync : "30s") + " --state-file " + state +
                    " >" + log + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  pid_t pid = -1;
  REQUIRE(::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0);
  for (int i = 0; i < 200 && !log_has(log, "pass converged"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(log_has(log, "pass converged"));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  long rss = status_kib(pid, "VmRSS"), hwm = status_kib(pid, "VmHWM");
  const int seconds =
      std::getenv("FED_BENCH_IDLE_SECONDS") ? std::atoi(std::getenv("FED_BENCH_IDLE_SECONDS")) : 30;
  double c0 = cpu_seconds(pid);
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  double c1 = cpu_seconds(pid);
  long rss_after = status_kib(pid, "VmRSS");
  MESSAGE("agent with 10 000 mappings: RSS "
          << rss / 1024.0 << " MiB after converging, " << rss_after / 1024.0 << " MiB after "
          << seconds << " s idle, peak " << hwm / 1024.0 << " MiB (target <= 20 MiB); idle CPU "
          << 100.0 * (c1 - c0) / seconds << " % over " << seconds
          << " s with resync passes (target <= 1 %)");
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  std::remove(state.c_str());
  std::remove(log.c_str());
}

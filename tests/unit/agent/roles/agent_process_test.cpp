// fed-agent as a process: start a role on loopback, probe it, stop it with SIGTERM.

#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "shared/raii/fd.hpp"
#include "tests/unit/shared/http/test_client.hpp"

extern char** environ;

using namespace std::chrono_literals;
using fed::http::test::body_of;
using fed::http::test::get;
using fed::http::test::status_line;

namespace {

// A child process with stdout and stderr merged into one pipe; killed if the test bails out.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    int fds[2];
    REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
    out_.reset(fds[0]);
    fed::Fd write_end(fds[1]);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, write_end.get(), 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  // Reads output until `pattern` matches or `timeout` passes; the first capture group.
  std::string wait_for(const std::regex& pattern, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::smatch m;
    while (!std::regex_search(output_, m, pattern)) {
      if (std::chrono::steady_clock::now() > deadline || !read_some(deadline)) return "";
    }
    return m.size() > 1 ? m[1].str() : m[0].str();
  }

  // Waits for exit; the exit status, or -1 (after SIGKILL) when it takes longer than `timeout`.
  int wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        while (read_some(std::chrono::steady_clock::now() + 100ms)) {
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(10ms);
    }
    return -1;
  }

  void signal(int signo) { ::kill(pid_, signo); }
  const std::string& output() const { return output_; }

 private:
  bool read_some(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{out_.get(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::max<long>(left.count(), 0))) <= 0) return false;
    char buf[4096];
    const ssize_t n = ::read(out_.get(), buf, sizeof buf);
    if (n <= 0) return false;
    output_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  fed::Fd out_;
  std::string output_;
};

}  // namespace

// An etcd "member" that is never there: the proxy must run, serve health, and say it is not
// ready (it knows no leader) instead of failing. No status socket: two agents run at once here,
// and a test should not leave /run/kubectl-fed/etcd-proxy.sock to a proxy on this machine.
// Any free metrics port too, so that two proxies (and other tests) do not contend for 9442.
const std::vector<std::string> kNoEtcd = {
    "--members", "https://127.0.0.1:1",    "--listen-address", "127.0.0.1:0", "--status-socket",
    "",          "--metrics-bind-address", "127.0.0.1:0"};

std::vector<std::string> etcd_proxy(std::vector<std::string> args) {
  args.insert(args.begin(), {FED_AGENT_BINARY, "etcd-proxy"});
  args.insert(args.end(), kNoEtcd.begin(), kNoEtcd.end());
  return args;
}

TEST_CASE("fed-agent etcd-proxy serves health and metrics and exits 0 on SIGTERM within 2 s") {
  Child agent(etcd_proxy({"--bind-address", "127.0.0.1:0", "-v=2"}));
  const std::string port_text =
      agent.wait_for(std::regex(R"(health server listening on 127\.0\.0\.1:(\d+))"), 10s);
  INFO(agent.output());
  REQUIRE_FALSE(port_text.empty());
  const auto port = static_cast<std::uint16_t>(std::stoi(port_text));

  CHECK(status_line(get(port, "/healthz")) == "HTTP/1.1 200 OK");
  CHECK_FALSE(agent.wait_for(std::regex("etcd proxy listening on port [1-9]"), 5s).empty());
  // No member answers, so no leader is known: alive, not ready.
  CHECK(status_line(get(port, "/readyz")) == "HTTP/1.1 503 Service Unavailable");

  // /metrics is on a port of its own, in plain HTTP on loopback (the proxy's default).
  CHECK(status_line(get(port, "/metrics")) == "HTTP/1.1 404 Not Found");
  const std::string metrics_port =
      agent.wait_for(std::regex(R"(metrics server listening on 127\.0\.0\.1:(\d+))"), 5s);
  REQUIRE_FALSE(metrics_port.empty());
  const std::string metrics =
      body_of(get(static_cast<std::uint16_t>(std::stoi(metrics_port)), "/metrics"));
  CHECK(metrics.find("# TYPE process_resident_memory_bytes gauge\n") != std::string::npos);
  CHECK(std::regex_search(metrics, std::regex(R"(\nprocess_resident_memory_bytes [1-9]\d*\n)")));
  CHECK(std::regex_search(metrics, std::regex(R"(\nprocess_cpu_seconds_total [0-9.e+-]+\n)")));
  CHECK(std::regex_search(metrics, std::regex(R"(\nprocess_start_time_seconds \d+)")));
  CHECK(metrics.find("fed_agent_ready 0\n") != std::string::npos);
  CHECK(metrics.find("role=\"etcd-proxy\"} 1\n") != std::string::npos);

  // An idle keep-open connection must not hold up the shutdown.
  auto idle = fed::http::test::connect_loopback(port);
  const auto t0 = std::chrono::steady_clock::now();
  agent.signal(SIGTERM);
  const int code = agent.wait_exit(2s);
  CHECK(code == 0);
  CHECK(std::chrono::steady_clock::now() - t0 < 2s);
  CHECK(agent.output().find("stopped cleanly") != std::string::npos);
}

TEST_CASE("fed-agent logs JSON with --log-format json; the manager without a cluster exits 1") {
  // No kubeconfig anywhere: the manager must say how to give it one, as a JSON log line.
  Child agent({"/usr/bin/env", "-u", "KUBECONFIG", "-u", "KUBERNETES_SERVICE_HOST",
               "HOME=/nonexistent", FED_AGENT_BINARY, "--log-format", "json", "manager",
               "--bind-address", "127.0.0.1:0"});
  CHECK(agent.wait_exit(10s) == 1);
  INFO(agent.output());
  const std::string line =
      agent.wait_for(std::regex(R"((\{[^\n]*role failed to start[^\n]*\}))"), 1s);
  REQUIRE_FALSE(line.empty());
  CHECK(line.find("\"level\":\"error\"") != std::string::npos);
  CHECK(line.find("pass --kubeconfig") != std::string::npos);
  CHECK(std::regex_search(
      agent.output(),
      std::regex(R"(\{"level":"info","msg":"health server listening on [^\n]*\})")));
}

TEST_CASE("fed-agent node: the API mode needs a cluster, bad datapath flags exit 2") {
  {
    Child agent({"/usr/bin/env", "-u", "KUBECONFIG", "-u", "KUBERNETES_SERVICE_HOST",
                 "HOME=/nonexistent", FED_AGENT_BINARY, "node", "--node-name", "n1",
                 "--bind-address", "127.0.0.1:0"});
    CHECK(agent.wait_exit(10s) == 1);
    CHECK(agent.output().find("pass --kubeconfig") != std::string::npos);
  }
  {
    Child agent({FED_AGENT_BINARY, "node", "--resync-period", "soon"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("--resync-period \"soon\"") != std::string::npos);
  }
}

TEST_CASE("fed-agent manager: bad leader-election flags exit 2 naming the flag") {
  const std::string endpoints = "--leader-elect-etcd-endpoints";
  {
    Child agent({FED_AGENT_BINARY, "manager", endpoints, "http://127.0.0.1:2379"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("\"http://127.0.0.1:2379\" is not an https URL") !=
          std::string::npos);
  }
  {
    Child agent({FED_AGENT_BINARY, "manager", endpoints, "https://127.0.0.1:2379"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("needs --leader-elect-etcd-cafile") != std::string::npos);
  }
  {
    Child agent({FED_AGENT_BINARY, "manager", endpoints, "https://127.0.0.1:2379",
                 "--leader-elect-etcd-cafile", "/ca", "--leader-elect-etcd-certfile", "/c",
                 "--leader-elect-etcd-keyfile", "/k", "--leader-elect-renew-deadline", "690ms"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("renew deadline (690 ms)") != std::string::npos);
  }
}

TEST_CASE("fed-agent usage errors exit 2 with a suggestion; version exits 0") {
  {
    Child agent({FED_AGENT_BINARY, "nod"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("unknown command \"nod\"; did you mean \"node\"?") !=
          std::string::npos);
  }
  {
    Child agent({FED_AGENT_BINARY, "node", "--log-format", "yaml"});
    CHECK(agent.wait_exit(5s) == 2);
  }
  {
    Child agent({FED_AGENT_BINARY, "node", "--bind-address", "nowhere"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("--bind-address: bind address \"nowhere\": missing port") !=
          std::string::npos);
  }
  {
    Child agent({FED_AGENT_BINARY, "etcd-proxy", "--bind-address", "127.0.0.1:0"});
    CHECK(agent.wait_exit(5s) == 2);
    CHECK(agent.output().find("--members: no etcd member given") != std::string::npos);
  }
  {
    Child agent({FED_AGENT_BINARY, "version"});
    CHECK(agent.wait_exit(5s) == 0);
    CHECK(std::regex_search(agent.output(),
                            std::regex(R"(^fed-agent \d+\.\d+\.\d+ \(commit \w+\)\n$)")));
  }
}

TEST_CASE("fed-agent exits 1 when its port is taken") {
  Child first(etcd_proxy({"--bind-address", "127.0.0.1:0"}));
  const std::string port =
      first.wait_for(std::regex(R"(health server listening on 127\.0\.0\.1:(\d+))"), 10s);
  REQUIRE_FALSE(port.empty());
  Child second(etcd_proxy({"--bind-address", "127.0.0.1:" + port}));
  CHECK(second.wait_exit(5s) == 1);
  CHECK(second.output().find("Address already in use") != std::string::npos);
  first.signal(SIGTERM);
  CHECK(first.wait_exit(2s) == 0);
}

TEST_CASE("fed-agent probe: the listener answers with the source it saw; no answer exits 1") {
  Child listener({FED_AGENT_BINARY, "probe", "--listen", "17946", "--id", "c1", "--for", "20s"});
  Child dialler({FED_AGENT_BINARY, "probe", "--dial", "127.0.0.1:17946", "--timeout", "10s"});
  CHECK(dialler.wait_exit(15s) == 0);
  CHECK(dialler.output() == "kubectl-fed-probe c1 from 127.0.0.1\n");
  listener.signal(SIGTERM);  // handled, not fatal: as a pod's PID 1 it gets no default action
  CHECK(listener.wait_exit(5s) == 0);

  Child nobody({FED_AGENT_BINARY, "probe", "--dial", "127.0.0.1:17946", "--timeout", "1s"});
  CHECK(nobody.wait_exit(10s) == 1);
  CHECK(nobody.output().find("no answer from 127.0.0.1:17946 in 1s") != std::string::npos);
  Child both({FED_AGENT_BINARY, "probe", "--listen", "1", "--dial", "127.0.0.1:1"});
  CHECK(both.wait_exit(5s) == 2);
}

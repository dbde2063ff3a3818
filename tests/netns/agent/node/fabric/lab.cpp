#include "tests/netns/agent/node/fabric/lab.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

extern char** environ;

namespace fed::fabric::netns_test {
namespace {

std::atomic<bool> g_case_failed{false};

// Tracks whether the running test case failed, so a Lab knows whether to keep its state.
struct FailureListener : doctest::IReporter {
  explicit FailureListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { g_case_failed = false; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override { g_case_failed = true; }
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData& ad) override {
    if (ad.m_failed) g_case_failed = true;
  }
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("fed-netns-failures", 1, FailureListener);

int g_lab_counter = 0;

}  // namespace

CmdResult sh(const std::string& cmd) {
  CmdResult r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string must(const std::string& cmd) {
  auto r = sh(cmd);
  INFO("command: " << cmd << "\noutput: " << r.out);
  REQUIRE(r.code == 0);
  return r.out;
}

Lab::Lab() {
  prefix_ = "fedt" + std::to_string(::getpid()) + "-" + std::to_string(++g_lab_counter) + "-";
  dir_ = "/tmp/" + prefix_.substr(0, prefix_.size() - 1);
  std::filesystem::create_directories(dir_);
}

Lab::~Lab() {
  for (auto pid : pids_) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  if (g_case_failed || std::uncaught_exceptions() > 0) {
    std::fprintf(stderr, "netns test failed: keeping namespaces %s* and files in %s\n",
                 prefix_.c_str(), dir_.c_str());
    return;
  }
  for (auto it = names_.rbegin(); it != names_.rend(); ++it) sh("ip netns del " + *it);
  std::filesystem::remove_all(dir_);
}

void Lab::add_ns(const std::string& name) {
  must("ip netns add " + ns(name));
  names_.push_back(ns(name));
  run(name,
      "sh -c 'ip link set lo up && sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
      "net.ipv6.conf.default.disable_ipv6=1'");
}

std::string Lab::in(const std::string& name, const std::string& cmd) const {
  return "ip netns exec " + ns(name) + " " + cmd;
}

pid_t Lab::spawn(const std::string& name, const std::string& cmd, const std::string& log) {
  std::string full = "exec " + in(name, cmd) + " >>" + log + " 2>&1";
  const char* argv[] = {"/bin/sh", "-c", full.c_str(), nullptr};
  pid_t pid = -1;
  REQUIRE(::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) == 0);
  pids_.push_back(pid);
  return pid;
}

void Lab::stop(pid_t pid, int sig) {
  ::kill(pid, sig);
  ::waitpid(pid, nullptr, 0);
  std::erase(pids_, pid);
}

std::string Lab::snapshot(const std::string& full_name) const {
  std::string x = "ip netns exec " + full_name + " ";
  return must(x + "iptables-legacy-save | grep -v '^#' | sed -E 's/\\[[0-9]+:[0-9]+\\]/[]/'") +
         "--- rules\n" + must(x + "ip rule show") + "--- routes\n" +
         must(x + "ip route show table all") + "--- links\n" +
         must(x + "ip -d link show | sed -E 's/([a-z_]+_timer) +[0-9.]+/\\1/g'") +
         "--- addresses\n" + must(x + "ip addr show") +
         // The agent's nftables table: its structure, then every map element sorted (a hash
         // map lists its elements in no fixed order).
         "--- nftables\n" + must(x + "nft -t list ruleset") +
         must(x +
              "nft list ruleset | tr ',{}' '\\n\\n\\n' | grep ' : ' | sed -E 's/^[[:space:]]+//' | "
              "sort");
}

std::map<std::string, std::string> Lab::snapshot_all() const {
  // Carrier comes up asynchronously after `ip link set up`: let it settle first.
  for (int i = 0; i < 60; ++i) {
    bool settled = true;
    for (const auto& n : names_) {
      if (sh("ip -n " + n + " -o link show").out.find("NO-CARRIER") != std::string::npos) {
        settled = false;
      }
    }
    if (settled) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::map<std::string, std::string> out;
  for (const auto& n : names_) out[n] = snapshot(n);
  return out;
}

std::string Lab::write_file(const std::string& name, const std::string& text) const {
  std::string path = dir_ + "/" + name;
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text;
  }
  std::filesystem::rename(tmp, path);  // atomic: an agent never reads half a file
  return path;
}

std::string Lab::diff(const std::string& expected, const std::string& actual) const {
  if (expected == actual) return "";
  auto a = write_file("expected.txt", expected);
  auto b = write_file("actual.txt", actual);
  return sh("diff -u " + a + " " + b).out;
}

void require_prerequisites() {
  INFO(
      "netns tests run as root with ip, iptables-legacy-save and sysctl installed "
      "(scripts/bootstrap installs them)");
  REQUIRE(::geteuid() == 0);
  for (const char* tool : {"ip", "iptables-legacy", "iptables-legacy-save", "sysctl"}) {
    INFO("missing tool: " << tool);
    REQUIRE(sh(std::string("command -v ") + tool).code == 0);
  }
}

bool wait_for_text(const std::string& path, const std::string& needle, int count,
                   std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string s = ss.str();
    int n = 0;
    for (auto pos = s.find(needle); pos != std::string::npos; pos = s.find(needle, pos + 1)) ++n;
    if (n >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

}  // namespace fed::fabric::netns_test

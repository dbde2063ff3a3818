#pragma once
// Lab: network namespaces, processes and files of one netns test, named uniquely per run. On
// success everything is removed; when the test case failed the namespaces, state files and agent
// logs are kept and their names printed, for inspection with `ip netns exec`.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace fed::fabric::netns_test {

struct CmdResult {
  int code = -1;
  std::string out;  // stdout and stderr
};

// Runs `cmd` with /bin/sh.
CmdResult sh(const std::string& cmd);
// Runs `cmd` and fails the test case (REQUIRE) when it exits non-zero.
std::string must(const std::string& cmd);

class Lab {
 public:
  Lab();
  ~Lab();
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;

  // The full namespace name of `name` (unique per run).
  std::string ns(const std::string& name) const { return prefix_ + name; }
  // Creates a namespace with loopback up and IPv6 off (so link-local noise cannot differ).
  void add_ns(const std::string& name);
  // "ip netns exec <ns> <cmd>".
  std::string in(const std::string& name, const std::string& cmd) const;
  // Runs `cmd` in the namespace, REQUIREs success, returns the output.
  std::string run(const std::string& name, const std::string& cmd) { return must(in(name, cmd)); }

  // Starts `cmd` in the namespace in the background, output to `log`; returns its pid.
  pid_t spawn(const std::string& name, const std::string& cmd, const std::string& log);
  // Sends `sig` and reaps the process.
  void stop(pid_t pid, int sig);

  // iptables-legacy-save (counters blanked), ip rule, ip route show table all, ip -d link,
  // ip addr: the kernel state the agent may touch, as text.
  // (`full_name` is a namespace name as returned by ns()).
  std::string snapshot(const std::string& full_name) const;
  std::map<std::string, std::string> snapshot_all() const;

  // A directory for state files and logs.
  const std::string& dir() const { return dir_; }
  std::string write_file(const std::string& name, const std::string& text) const;
  std::vector<std::string> namespaces() const { return names_; }
  // `diff -u` of two texts ("" when equal), for failure messages.
  std::string diff(const std::string& expected, const std::string& actual) const;

 private:
  std::string prefix_;
  std::string dir_;
  std::vector<std::string> names_;
  std::vector<pid_t> pids_;
};

// Fails the test case (REQUIRE) unless every tool the netns tests drive is present and we are
// root: a missing prerequisite is a failure, never a skip.
void require_prerequisites();

// Waits until `path` contains `needle` at least `count` times; false on timeout.
bool wait_for_text(const std::string& path, const std::string& needle, int count,
                   std::chrono::milliseconds timeout);

}  // namespace fed::fabric::netns_test

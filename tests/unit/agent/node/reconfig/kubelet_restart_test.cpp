#include "agent/node/reconfig/kubelet_restart.hpp"

#include <doctest/doctest.h>

#include <string>

using fed::ErrorCode;
using namespace fed::reconfig;
using namespace std::chrono_literals;

TEST_CASE("parse_restart_method takes the four method names, nothing else") {
  CHECK(parse_restart_method("systemd").value() == RestartMethod::Systemd);
  CHECK(parse_restart_method("k3s").value() == RestartMethod::K3s);
  CHECK(parse_restart_method("supervisor").value() == RestartMethod::Supervisor);
  CHECK(parse_restart_method("command").value() == RestartMethod::Command);
  for (const char* text : {"", "Systemd", "shell", "k3s-agent"}) {
    auto r = parse_restart_method(text);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message() ==
          "--restart-method " + std::string(text) + ": one of systemd, k3s, supervisor, command");
  }
}

TEST_CASE("restart_argv: systemctl in the host's namespaces for systemd and k3s") {
  RestartSpec spec;  // systemd, kubelet
  CHECK(restart_argv(spec) == std::vector<std::string>{"nsenter", "-t", "1", "-m", "-u", "-i", "-n",
                                                       "-p", "--", "systemctl", "restart",
                                                       "kubelet"});
  spec.method = RestartMethod::K3s;
  spec.service = "k3s-agent";
  const auto k3s = restart_argv(spec);
  REQUIRE(k3s.size() == 12);
  CHECK(k3s.front() == "nsenter");
  CHECK(k3s.back() == "k3s-agent");
  spec.command = {"ignored"};  // the command is only for the command method
  CHECK(restart_argv(spec).back() == "k3s-agent");
}

TEST_CASE("restart_argv: the command method runs the given argv unchanged") {
  RestartSpec spec;
  spec.method = RestartMethod::Command;
  spec.command = {"/usr/local/bin/restart-kubelet", "--node", "a b"};
  CHECK(restart_argv(spec) == spec.command);
  spec.command.clear();
  CHECK(restart_argv(spec).empty());
}

TEST_CASE("restart_kubelet runs the command and reports how a failure ended") {
  RestartSpec spec;
  spec.method = RestartMethod::Command;
  spec.timeout = 10s;
  spec.command = {"true"};
  CHECK(restart_kubelet(spec).has_value());

  spec.command = {"/bin/sh", "-c", "echo unit kubelet not found >&2; exit 5"};
  auto failed = restart_kubelet(spec);
  REQUIRE_FALSE(failed.has_value());
  CHECK(failed.error().code() == ErrorCode::Unavailable);
  CHECK(failed.error().message().find("`/bin/sh -c") != std::string::npos);
  CHECK(failed.error().message().find("unit kubelet not found") != std::string::npos);

  spec.command.clear();
  auto empty = restart_kubelet(spec);
  REQUIRE_FALSE(empty.has_value());
  CHECK(empty.error().code() == ErrorCode::Invalid);
  CHECK(empty.error().message().find("--restart-command") != std::string::npos);
}

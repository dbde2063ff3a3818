#pragma once
// The WireGuard back end the tunnel suites test: wireguard-go unless
// FED_TEST_WIREGUARD_BACKEND=kernel. The kernel's runs in a VM booted with Debian's kernel
// (scripts/kernel-vm; this host's kernel has no module), see this directory's CMakeLists.txt.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/node/os/linux/kernel_wireguard.hpp"
#include "agent/node/os/linux/netns_scope.hpp"
#include "agent/node/os/linux/wireguard_go_daemon.hpp"
#include "agent/node/tunnel/wireguard_backend.hpp"
#include "tests/netns/agent/node/fabric/lab.hpp"

namespace fed::tunnel::netns_test {

inline TunnelBackend backend_under_test() {
  const char* v = std::getenv("FED_TEST_WIREGUARD_BACKEND");
  const std::string name = v != nullptr && *v != '\0' ? v : "wireguard-go";
  const auto& names = tunnel_backend_names();
  auto it = names.find(name);
  INFO("FED_TEST_WIREGUARD_BACKEND=" << name << ": want kernel or wireguard-go");
  REQUIRE(it != names.end());
  REQUIRE(it->second != TunnelBackend::Auto);
  return it->second;
}

inline bool kernel_under_test() {
  return backend_under_test() == TunnelBackend::Kernel;
}

inline std::unique_ptr<os::WireguardDaemon> daemon_under_test() {
  TunnelOptions options;
  options.backend = backend_under_test();
  return make_wireguard(options);
}

// What the back end under test needs besides the netns suites' own tools.
inline void require_wireguard() {
  using fed::fabric::netns_test::sh;
  if (kernel_under_test()) {
    INFO("the kernel back end needs the kernel's WireGuard module and wg (wireguard-tools)");
    REQUIRE(os::kernel_wireguard_available());
    REQUIRE(sh("command -v wg").code == 0);
  } else {
    INFO("the tunnel needs wireguard-go, wg (wireguard-tools) and /dev/net/tun");
    REQUIRE(sh("command -v wireguard-go && command -v wg").code == 0);
    REQUIRE(std::filesystem::exists("/dev/net/tun"));
  }
}

// Stops the daemons whatever happens, so a failed case leaves no process behind (Lab keeps
// the namespaces for inspection). stop() only sees the daemons of the calling thread's network
// namespace, so it runs in each gateway's.
struct DaemonGuard {
  fabric::netns_test::Lab& lab;
  std::vector<std::pair<std::string, std::string>> daemons;  // namespace, interface
  ~DaemonGuard() {
    for (const auto& [ns, interface] : daemons) {
      auto scope = os::NetnsScope::enter_named(lab.ns(ns));
      if (!scope) continue;
      os::WireguardGoDaemon daemon({});
      (void)daemon.stop(interface);
    }
  }
};

}  // namespace fed::tunnel::netns_test

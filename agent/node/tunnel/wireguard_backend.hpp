#pragma once
// Which WireGuard implementation carries the gateway tunnel: the node agent's choice between the
// kernel's and wireguard-go, made once at start-up.

#include <map>
#include <memory>
#include <string>

#include "agent/node/os/wireguard_daemon.hpp"
#include "agent/node/tunnel/tunnel_config.hpp"

namespace fed::tunnel {

// The flag's spellings: "auto", "kernel", "wireguard-go".
const std::map<std::string, TunnelBackend>& tunnel_backend_names();

// The implementation `options.backend` asks for. Auto takes the kernel's when its generic
// netlink family resolves (which loads the module where the kernel has one), else wireguard-go:
// the kernel's is the faster by far (docs/BENCHMARKS.md, gateway tunnel throughput) and needs
// no process.
std::unique_ptr<os::WireguardDaemon> make_wireguard(const TunnelOptions& options);

}  // namespace fed::tunnel

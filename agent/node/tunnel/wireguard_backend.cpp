#include "agent/node/tunnel/wireguard_backend.hpp"

#include <spdlog/spdlog.h>

#include "agent/node/os/linux/kernel_wireguard.hpp"
#include "agent/node/os/linux/wireguard_go_daemon.hpp"

namespace fed::tunnel {

const std::map<std::string, TunnelBackend>& tunnel_backend_names() {
  static const std::map<std::string, TunnelBackend> names{
      {"auto", TunnelBackend::Auto},
      {"kernel", TunnelBackend::Kernel},
      {"wireguard-go", TunnelBackend::WireguardGo},
  };
  return names;
}

std::unique_ptr<os::WireguardDaemon> make_wireguard(const TunnelOptions& options) {
  bool kernel = options.backend == TunnelBackend::Kernel;
  if (options.backend == TunnelBackend::Auto) {
    kernel = os::kernel_wireguard_available();
    spdlog::info("gateway tunnel: WireGuard back end \"auto\" chose {}",
                 kernel ? "the kernel's" : "wireguard-go (the kernel has no WireGuard module)");
  }
  if (kernel) return std::make_unique<os::KernelWireguard>();
  os::WireguardGoSettings settings;
  settings.program = options.wireguard_go;
  settings.socket_dir = options.socket_dir;
  return std::make_unique<os::WireguardGoDaemon>(std::move(settings));
}

}  // namespace fed::tunnel

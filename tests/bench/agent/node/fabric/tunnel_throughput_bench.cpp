// What the gateway tunnel costs (issue 5): TCP throughput and latency between two gateway
// namespaces joined by a veth, plainly, through WireGuard (wireguard-go, what `auto` uses on
// kernels without the module) and through the unencrypted VXLAN tunnel, each set up by the
// agent's own code (TunnelReconciler, converge_vxlan_tunnel). Measured like the datapath
// bench (tcp_paths.hpp). No target: the figures say what `--tunnel-backend vxlan` buys.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netns_scope.hpp"
#include "agent/node/os/linux/wireguard_go_daemon.hpp"
#include "agent/node/tunnel/key_file.hpp"
#include "agent/node/tunnel/tunnel_reconciler.hpp"
#include "agent/node/tunnel/vxlan_tunnel.hpp"
#include "tests/bench/agent/node/fabric/tcp_paths.hpp"

using namespace fed::fabric::netns_test;
namespace tunnel = fed::tunnel;
namespace os = fed::os;
namespace net = fed::net;

namespace {

net::Ipv4 ip(const char* s) {
  return *net::Ipv4::parse(s);
}

// Runs `body` with a link manager and a wireguard-go daemon of `ns`.
template <typename F>
void in_namespace(Lab& lab, const std::string& ns, F body) {
  auto scope = os::NetnsScope::enter_named(lab.ns(ns));
  REQUIRE(scope);
  auto links = os::NetlinkLinkManager::create();
  REQUIRE(links);
  os::WireguardGoDaemon daemon({});
  body(**links, daemon);
}

}  // namespace

TEST_CASE("gateway tunnel throughput: veth vs WireGuard (wireguard-go) vs VXLAN") {
  REQUIRE(::geteuid() == 0);
  REQUIRE(std::filesystem::exists("/dev/net/tun"));
  Lab lab;
  lab.add_ns("ga");
  lab.add_ns("gb");
  veth(lab, "ga", "wan", "gb", "wan");
  lab.run("ga", "sh -c 'ip addr add 192.0.2.1/24 dev wan && ip link set wan up'");
  lab.run("gb", "sh -c 'ip addr add 192.0.2.2/24 dev wan && ip link set wan up'");

  // WireGuard between 169.254.64.1 and .2, as the gateways run it.
  const std::string tag = std::to_string(::getpid() % 100000);
  tunnel::DesiredTunnel wg[2];
  std::string public_keys[2];
  for (int i = 0; i < 2; ++i) {
    auto& o = wg[i].options;
    o.interface = "fbw" + tag + std::to_string(i);
    o.address = ip(i == 0 ? "169.254.64.1" : "169.254.64.2");
    o.private_key_file = lab.dir() + "/key" + std::to_string(i);
    auto key = tunnel::load_or_create_private_key(o.private_key_file);
    REQUIRE(key);
    wg[i].private_key = *key;
    public_keys[i] = tunnel::public_key_of(*key)->base64();
  }
  for (int i = 0; i < 2; ++i) {
    tunnel::TunnelPeer p;
    p.cluster_id = i == 0 ? "b" : "a";
    p.public_key = public_keys[1 - i];
    p.endpoint = ip(i == 0 ? "192.0.2.2" : "192.0.2.1");
    p.tunnel_address = wg[1 - i].options.address;
    wg[i].peers = {p};
  }
  // VXLAN between 169.254.192.1 and .2 (another /18, so both tunnels coexist).
  tunnel::VxlanTunnelOptions vx;
  vx.interface = "fbx" + tag;
  const char* ns[2] = {"ga", "gb"};
  for (int i = 0; i < 2; ++i) {
    in_namespace(lab, ns[i], [&](os::LinkManager& links, os::WireguardDaemon& daemon) {
      tunnel::TunnelReconciler reconciler({links, daemon});
      auto changes = reconciler.converge(wg[i]);
      INFO((changes ? std::string() : changes.error().message()));
      REQUIRE(changes);
      const auto own = ip(i == 0 ? "169.254.192.1" : "169.254.192.2");
      const auto peer = ip(i == 0 ? "169.254.192.2" : "169.254.192.1");
      REQUIRE(tunnel::converge_vxlan_tunnel(
          links, vx,
          tunnel::desired_vxlan_tunnel(vx, own, 18,
                                       {{"peer", ip(i == 0 ? "192.0.2.2" : "192.0.2.1"), peer}})));
    });
  }
  serve(lab, "gb");

  std::vector<TcpPath> paths = {
      {"veth between the gateways", "ga", "192.0.2.2", 0, {}, {}},
      {"WireGuard (wireguard-go) over the veth", "ga", "169.254.64.2", 0, {}, {}},
      {"VXLAN tunnel over the veth", "ga", "169.254.192.2", 0, {}, {}},
  };
  measure(lab, paths, "the veth");

  for (int i = 0; i < 2; ++i) {
    in_namespace(lab, ns[i], [&](os::LinkManager& links, os::WireguardDaemon& daemon) {
      tunnel::TunnelReconciler reconciler({links, daemon});
      CHECK(reconciler.uninstall(wg[i].options));
      CHECK(tunnel::converge_vxlan_tunnel(links, vx, {}));
    });
  }
}

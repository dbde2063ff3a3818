// Issue 5's gateway tunnel on a real kernel: two gateways in their own namespaces, joined by a
// veth (192.0.2.0/24), bring up WireGuard tunnels with keys from key_file through
// TunnelReconciler; a TCP payload crosses between the ranges behind them (addresses
// 10.250.x.1 on lo), `wg show` sees the handshake, a second pass changes nothing, a changed range
// converges, and uninstall leaves no link, socket or process and the namespaces as they were.
// The back end is wireguard-go unless FED_TEST_WIREGUARD_BACKEND=kernel: the kernel's is tested
// in a VM booted with Debian's kernel (scripts/kernel-vm; this host's kernel has no module).
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netns_scope.hpp"
#include "agent/node/os/linux/wireguard_go_daemon.hpp"
#include "agent/node/tunnel/key_file.hpp"
#include "agent/node/tunnel/tunnel_reconciler.hpp"
#include "tests/netns/agent/node/fabric/lab.hpp"
#include "tests/netns/agent/node/tunnel/wireguard_under_test.hpp"

using namespace fed::fabric::netns_test;
using namespace fed::tunnel::netns_test;
using namespace std::chrono_literals;
namespace tunnel = fed::tunnel;
namespace os = fed::os;
namespace net = fed::net;

namespace {

constexpr int kPort = 8080;

net::Ipv4 ip(std::string_view s) {
  return *net::Ipv4::parse(s);
}
net::Cidr cidr(std::string_view s) {
  return *net::Cidr::parse(s);
}

std::string probe_binary() {
  return FED_TCP_PROBE;
}

// One gateway: its namespace, interface and desired tunnel.
struct Gateway {
  std::string ns;  // short name, as Lab::add_ns takes it
  tunnel::DesiredTunnel desired;
  std::string public_key;  // base64
};

// Runs one pass of the reconciler for `gw` inside its namespace. The link manager's netlink
// socket and the daemon started by the pass both belong to that namespace.
// `backend` overrides the one under test.
fed::Result<tunnel::TunnelChanges> converge(Lab& lab, const Gateway& gw,
                                            std::optional<tunnel::TunnelBackend> backend = {}) {
  auto scope = os::NetnsScope::enter_named(lab.ns(gw.ns));
  REQUIRE(scope);
  auto links = os::NetlinkLinkManager::create();
  REQUIRE(links);
  tunnel::TunnelOptions options;
  options.backend = backend.value_or(backend_under_test());
  auto daemon = tunnel::make_wireguard(options);
  tunnel::TunnelReconciler reconciler({**links, *daemon});
  return reconciler.converge(gw.desired);
}

fed::Status uninstall(Lab& lab, const Gateway& gw) {
  auto scope = os::NetnsScope::enter_named(lab.ns(gw.ns));
  REQUIRE(scope);
  auto links = os::NetlinkLinkManager::create();
  REQUIRE(links);
  auto daemon = daemon_under_test();
  tunnel::TunnelReconciler reconciler({**links, *daemon});
  return reconciler.uninstall(gw.desired.options);
}

// "pb saw-src=10.250.1.1 got=<payload>", retried while the first handshake completes.
std::string probe(Lab& lab, const std::string& from, const std::string& to,
                  const std::string& payload, int attempts) {
  std::string out;
  for (int i = 0; i < attempts; ++i) {
    auto r = sh(lab.in(from, probe_binary() + " connect --port " + std::to_string(kPort) +
                                 " --timeout-ms 2000 --to " + to + " --payload " + payload));
    out = r.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    if (r.code == 0) return out;
  }
  return out;
}

bool daemon_process_left(const std::string& interface) {
  return sh("pgrep -f '^wireguard-go " + interface + "$'").code == 0;
}

// A gateway in namespace "a" alone (no underlay): its own key, tunnel address 169.254.64.1,
// an interface name unique per run (`suffix` tells the cases apart).
Gateway lone_gateway(Lab& lab, const std::string& suffix) {
  Gateway a{"a", {}, ""};
  auto& o = a.desired.options;
  o.interface = "fwg" + std::to_string(::getpid() % 100000) + suffix;
  o.address = ip("169.254.64.1");
  o.private_key_file = lab.dir() + "/a/private.key";
  auto key = tunnel::load_or_create_private_key(o.private_key_file);
  REQUIRE(key);
  a.desired.private_key = *key;
  return a;
}

// A peer with a fresh key that no gateway answers for.
tunnel::TunnelPeer silent_peer(const std::string& id, const std::string& endpoint,
                               const std::string& tunnel_address) {
  auto key = tunnel::generate_private_key();
  REQUIRE(key);
  tunnel::TunnelPeer p;
  p.cluster_id = id;
  p.public_key = tunnel::public_key_of(*key)->base64();
  p.endpoint = ip(endpoint);
  p.tunnel_address = ip(tunnel_address);
  return p;
}

// CHECKs that every namespace of `lab` is as `baseline` (Lab::snapshot_all()) has it.
void check_as_before(Lab& lab, const std::map<std::string, std::string>& baseline) {
  const auto after = lab.snapshot_all();
  for (const auto& [name, text] : baseline) {
    INFO("namespace " << name << " differs after uninstall:\n" << lab.diff(text, after.at(name)));
    CHECK(after.at(name) == text);
  }
}

}  // namespace

TEST_CASE("two gateways: bring-up, TCP across the tunnel, no-op pass, range change, uninstall") {
  require_prerequisites();
  require_wireguard();
  const bool kernel = kernel_under_test();
  Lab lab;
  lab.add_ns("a");
  lab.add_ns("b");
  // Underlay: one veth between the gateways. Behind each, /32 addresses on lo stand for the
  // "pod" ranges (lo rather than a dummy link: not every kernel has the dummy module).
  must("ip -n " + lab.ns("a") + " link add wan type veth peer name wan netns " + lab.ns("b"));
  lab.run("a",
          "sh -c 'ip addr add 192.0.2.1/24 dev wan && ip link set wan up && "
          "ip addr add 10.250.1.1/32 dev lo'");
  lab.run("b",
          "sh -c 'ip addr add 192.0.2.2/24 dev wan && ip link set wan up && "
          "ip addr add 10.250.2.1/32 dev lo && ip addr add 10.250.3.1/32 dev lo'");
  const auto baseline = lab.snapshot_all();

  // Interface names unique per run: wireguard-go's socket directory is shared by every
  // namespace, so a fixed name could meet another test's (or the node's own) tunnel.
  const std::string tag = std::to_string(::getpid() % 100000);
  Gateway a{"a", {}, ""};
  Gateway b{"b", {}, ""};
  DaemonGuard guard{lab, {{"a", "fwg" + tag + "a"}, {"b", "fwg" + tag + "b"}}};
  for (auto* gw : {&a, &b}) {
    auto& o = gw->desired.options;
    o.interface = "fwg" + tag + gw->ns;
    o.address = ip(gw == &a ? "169.254.64.1" : "169.254.64.2");
    o.private_key_file = lab.dir() + "/" + gw->ns + "/private.key";
    auto key = tunnel::load_or_create_private_key(o.private_key_file);
    REQUIRE(key);
    gw->desired.private_key = *key;
    gw->public_key = tunnel::public_key_of(*key)->base64();
  }
  auto peer_of = [](const Gateway& gw, const char* id, const char* endpoint, const char* range) {
    tunnel::TunnelPeer p;
    p.cluster_id = id;
    p.public_key = gw.public_key;
    p.endpoint = ip(endpoint);
    p.tunnel_address = gw.desired.options.address;
    p.ranges = {cidr(range)};
    return p;
  };
  a.desired.peers = {peer_of(b, "b", "192.0.2.2", "10.250.2.0/24")};
  b.desired.peers = {peer_of(a, "a", "192.0.2.1", "10.250.1.0/24")};
  const std::string wa = a.desired.options.interface;
  const std::string wb = b.desired.options.interface;

  // Bring-up: the first pass starts the daemon and configures everything.
  for (const auto* gw : {&a, &b}) {
    auto changes = converge(lab, *gw);
    INFO("bring-up of " << gw->ns << ": " << (changes ? "" : changes.error().message()));
    REQUIRE(changes);
    CHECK(changes->start_daemon);
    CHECK(changes->uapi.peers.size() == 1);
  }
  auto link_a = lab.run("a", "ip -d -o link show " + wa);
  INFO("ip -d link show: " << link_a);
  // The back end asked for made the link: a kernel WireGuard device, or wireguard-go's TUN.
  CHECK(link_a.find(kernel ? "wireguard" : "tun type tun") != std::string::npos);
  CHECK(link_a.find("mtu 1420") != std::string::npos);
  CHECK(link_a.find("alias fed-agent") != std::string::npos);
  CHECK(link_a.find(",UP") != std::string::npos);
  CHECK(lab.run("a", "ip -o addr show dev " + wa).find("169.254.64.1/18") != std::string::npos);

  // The fabric's job in the real datapath: the ranges behind the peer go into the tunnel, with
  // the local range as source so the payload really travels range to range.
  lab.run("a", "ip route add 10.250.2.0/24 via 169.254.64.2 dev " + wa + " src 10.250.1.1");
  lab.run("a", "ip route add 10.250.3.0/24 via 169.254.64.2 dev " + wa + " src 10.250.1.1");
  lab.run("b", "ip route add 10.250.1.0/24 via 169.254.64.1 dev " + wb + " src 10.250.2.1");
  lab.spawn("a", probe_binary() + " serve --port 8080 --name pa", lab.dir() + "/pa.log");
  lab.spawn("b", probe_binary() + " serve --port 8080 --name pb", lab.dir() + "/pb.log");
  std::this_thread::sleep_for(200ms);  // the servers listen

  CHECK(probe(lab, "a", "10.250.2.1", "hello-from-a", 5) ==
        "pb saw-src=10.250.1.1 got=hello-from-a");
  CHECK(probe(lab, "b", "10.250.1.1", "hello-from-b", 5) ==
        "pa saw-src=10.250.2.1 got=hello-from-b");

  // wg(8) reads the device on its own (UAPI socket or the kernel's netlink): it sees the peer, a
  // handshake and traffic.
  auto handshakes = lab.run("a", "wg show " + wa + " latest-handshakes");
  INFO("wg show latest-handshakes: " << handshakes);
  CHECK(handshakes.find(b.public_key + "\t") == 0);
  CHECK(handshakes.find("\t0\n") == std::string::npos);
  CHECK(lab.run("a", "wg show " + wa + " endpoints").find("192.0.2.2:51820") != std::string::npos);

  // A second pass changes nothing.
  for (const auto* gw : {&a, &b}) {
    auto again = converge(lab, *gw);
    REQUIRE(again);
    CHECK(again->empty());
  }

  // Drift made by hand is repaired.
  lab.run("a", "ip link set " + wa + " mtu 1500");
  auto repaired = converge(lab, a);
  REQUIRE(repaired);
  CHECK(repaired->link.mtu == 1420u);
  CHECK(repaired->uapi.empty());
  CHECK(lab.run("a", "ip -o link show " + wa).find("mtu 1420") != std::string::npos);

  // B's range as A sees it moves from 10.250.2.0/24 to 10.250.3.0/24.
  a.desired.peers[0].ranges = {cidr("10.250.3.0/24")};
  auto moved = converge(lab, a);
  REQUIRE(moved);
  REQUIRE(moved->uapi.peers.size() == 1);
  CHECK(moved->uapi.peers[0].allowed_ips ==
        std::vector<std::string>{"10.250.3.0/24", "169.254.64.2/32"});
  auto settled = converge(lab, a);
  REQUIRE(settled);
  CHECK(settled->empty());
  auto allowed = lab.run("a", "wg show " + wa + " allowed-ips");
  INFO("wg show allowed-ips: " << allowed);
  CHECK(allowed.find("10.250.3.0/24") != std::string::npos);
  CHECK(allowed.find("10.250.2.0/24") == std::string::npos);
  CHECK(probe(lab, "a", "10.250.3.1", "to-the-new-range", 3) ==
        "pb saw-src=10.250.1.1 got=to-the-new-range");
  // The route is still there, but WireGuard no longer sends 10.250.2.0/24 to any peer.
  CHECK(probe(lab, "a", "10.250.2.1", "to-the-old-range", 1).find("connect-failed") == 0);

  // Uninstall: no link, socket or daemon is left, and the namespaces are as before.
  for (const auto* gw : {&a, &b}) {
    auto s = uninstall(lab, *gw);
    INFO("uninstall of " << gw->ns << ": " << (s ? "" : s.error().message()));
    CHECK(s);
    const auto& name = gw->desired.options.interface;
    CHECK(sh("ip -n " + lab.ns(gw->ns) + " link show " + name).code != 0);
    CHECK_FALSE(std::filesystem::exists("/var/run/wireguard/" + name + ".sock"));
    CHECK_FALSE(daemon_process_left(name));
    CHECK(uninstall(lab, *gw));  // idempotent
  }
  check_as_before(lab, baseline);
}

TEST_CASE("many peers and allowed IPs: read back whole, a second pass changes nothing") {
  require_prerequisites();
  require_wireguard();
  Lab lab;
  lab.add_ns("a");
  const auto baseline = lab.snapshot_all();

  // 64 peers of 40 ranges each: the kernel's answer to a device read spans several netlink
  // messages and splits peers across them, which a partial read would turn into a non-empty
  // second plan.
  constexpr int kPeers = 64;
  constexpr int kRanges = 40;
  Gateway a = lone_gateway(lab, "m");
  const auto& o = a.desired.options;
  DaemonGuard guard{lab, {{"a", o.interface}}};
  for (int i = 0; i < kPeers; ++i) {
    auto p = silent_peer("p" + std::to_string(i), "192.0.2." + std::to_string(i + 2),
                         "169.254.65." + std::to_string(i + 1));
    for (int r = 0; r < kRanges; ++r) {
      p.ranges.push_back(cidr("10." + std::to_string(100 + i) + "." + std::to_string(r) + ".0/24"));
    }
    a.desired.peers.push_back(std::move(p));
  }

  auto first = converge(lab, a);
  INFO("first pass: " << (first ? "" : first.error().message()));
  REQUIRE(first);
  CHECK(first->uapi.peers.size() == kPeers);
  auto second = converge(lab, a);
  REQUIRE(second);
  CHECK(second->empty());
  const auto allowed = lab.run("a", "wg show " + o.interface + " allowed-ips");
  // One line per peer: its key, then its ranges and tunnel address.
  CHECK(std::count(allowed.begin(), allowed.end(), '\n') == kPeers);
  auto occurrences = [&](std::string_view needle) {
    std::size_t n = 0;
    for (auto pos = allowed.find(needle); pos != std::string::npos;
         pos = allowed.find(needle, pos + 1)) {
      ++n;
    }
    return n;
  };
  CHECK(occurrences(".0/24") == kPeers * kRanges);
  CHECK(occurrences("/32") == kPeers);

  // Half the peers go: removed in one pass, the rest untouched.
  a.desired.peers.resize(kPeers / 2);
  auto shrunk = converge(lab, a);
  REQUIRE(shrunk);
  CHECK(shrunk->uapi.peers.size() == kPeers / 2);
  for (const auto& change : shrunk->uapi.peers) CHECK(change.remove);
  auto settled = converge(lab, a);
  REQUIRE(settled);
  CHECK(settled->empty());
  CHECK(lab.run("a", "wg show " + o.interface + " peers").size() ==
        static_cast<std::size_t>(kPeers / 2) * 45);  // 44 base64 characters and a newline

  REQUIRE(uninstall(lab, a));
  CHECK(sh("ip -n " + lab.ns("a") + " link show " + o.interface).code != 0);
  check_as_before(lab, baseline);
}

// Needs both back ends, so only the kernel VM's ctest runs it (this directory's CMakeLists.txt
// excludes it from the host's run); anywhere else it fails at its first REQUIRE.
TEST_CASE("switching between wireguard-go and the kernel's WireGuard replaces the agent's link") {
  require_prerequisites();
  REQUIRE(kernel_under_test());
  require_wireguard();
  REQUIRE(sh("command -v wireguard-go").code == 0);
  Lab lab;
  lab.add_ns("a");
  const auto baseline = lab.snapshot_all();
  Gateway a = lone_gateway(lab, "s");
  const auto& o = a.desired.options;
  auto p = silent_peer("b", "192.0.2.2", "169.254.64.2");
  p.ranges = {cidr("10.250.2.0/24")};
  a.desired.peers = {p};
  DaemonGuard guard{lab, {{"a", o.interface}}};
  const auto userspace = tunnel::TunnelBackend::WireguardGo;
  const auto kernel = tunnel::TunnelBackend::Kernel;
  auto link_kind = [&] { return lab.run("a", "ip -d -o link show " + o.interface); };
  auto peers = [&] { return lab.run("a", "wg show " + o.interface + " peers"); };

  for (auto [from, to, kind] : {std::tuple{userspace, kernel, "wireguard"},
                                std::tuple{kernel, userspace, "tun type tun"}}) {
    auto before = converge(lab, a, from);
    INFO("first back end: " << (before ? "" : before.error().message()));
    REQUIRE(before);
    // The other back end finds our marked link of the wrong kind, deletes it and makes its own.
    auto switched = converge(lab, a, to);
    INFO("switch: " << (switched ? "" : switched.error().message()));
    REQUIRE(switched);
    CHECK(switched->delete_stale_link);
    CHECK(switched->start_daemon);
    const auto shown = link_kind();
    INFO("ip -d link show: " << shown);
    CHECK(shown.find(kind) != std::string::npos);
    CHECK(shown.find("alias fed-agent") != std::string::npos);
    CHECK(peers() == p.public_key + "\n");
    CHECK(lab.run("a", "ip -o addr show dev " + o.interface).find("169.254.64.1/18") !=
          std::string::npos);
    auto again = converge(lab, a, to);
    REQUIRE(again);
    CHECK(again->empty());
  }
  // The kernel's link went with the switch back: no wireguard-go is left after uninstall.
  REQUIRE(uninstall(lab, a));
  CHECK(sh("pgrep -f 'wireguard-go " + o.interface + "'").code != 0);
  check_as_before(lab, baseline);
}

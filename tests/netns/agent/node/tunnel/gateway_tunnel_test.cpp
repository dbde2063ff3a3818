// fed-agent node's gateway tunnel pass (agent/node/gateway_tunnel) on a real kernel: two
// gateways "node1" of clusters c1 and c2 in their own namespaces, joined by a veth
// (192.0.2.0/24). The test plays the API server (the inputs the informers would hold, and a
// GatewayApi that records what the agent writes) and the manager (it copies each side's
// published endpoint and key into the other side's Peering). Checked: publication, Pending
// while the peer's gateway is not published, WireGuard peers from the Peerings, Connected after a
// handshake and no rewrite of an unchanged status, a removed Peering's peer removed, and the tunnel
// removed when the node stops being the gateway, with the key file kept. Then the echo probe
// (TunnelProber): a peer whose WAN link goes down is reported Lost within seconds, and
// Connected again once it answers.
#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "agent/node/gateway_tunnel.hpp"
#include "agent/node/os/linux/netlink_link_manager.hpp"
#include "agent/node/os/linux/netns_scope.hpp"
#include "agent/node/os/linux/wireguard_go_daemon.hpp"
#include "tests/netns/agent/node/fabric/lab.hpp"
#include "tests/netns/agent/node/tunnel/wireguard_under_test.hpp"

using namespace fed::fabric::netns_test;
using namespace fed::tunnel::netns_test;
using namespace std::chrono_literals;
namespace federation = fed::federation;
namespace net = fed::net;
namespace fedapi = fed::fedapi;
namespace os = fed::os;
using nlohmann::json;

namespace {

// What the agent wrote to its cluster.
struct RecordingApi final : federation::GatewayApi {
  std::optional<federation::GatewayInfo> published;
  std::map<std::string, fedapi::TunnelStatus> reported;
  int reports = 0;
  fed::Status publish(const federation::GatewayInfo& g) override {
    published = g;
    return fed::ok();
  }
  fed::Status report(const std::string& peering, const fedapi::TunnelStatus& s) override {
    reported[peering] = s;
    ++reports;
    return fed::ok();
  }
};

// One cluster's gateway: its namespace, the informers' view and what the agent wrote.
struct Side {
  std::string ns;  // "a" / "b"
  int index = 0;   // cluster c<index>, gateway address 192.0.2.<index>
  fed::tunnel::TunnelOptions options;
  fed::tunnel::VxlanTunnelOptions vxlan;
  federation::NodeStateInputs in;
  RecordingApi api;
};

json gateway_node(int i, bool gateway) {
  const std::string n = std::to_string(i);
  json node{
      {"metadata",
       {{"name", "node1"}, {"annotations", {{"kubectl-fed.io/gateway-address", "192.0.2." + n}}}}},
      {"spec", {{"podCIDR", "10.24" + n + ".0.0/24"}}},
      {"status", {{"addresses", {{{"type", "InternalIP"}, {"address", "172.30." + n + ".11"}}}}}}};
  if (gateway) node["metadata"]["labels"]["kubectl-fed.io/gateway"] = "true";
  return node;
}

// Peering `peer` on cluster `self` as the manager writes it before the peer's gateway is up.
json peering(int self, int peer) {
  const std::string s = std::to_string(self), p = std::to_string(peer);
  return json{{"metadata", {{"name", "c" + p}}},
              {"spec",
               {{"localClusterID", "c" + s},
                {"peerClusterID", "c" + p},
                {"peerPodCIDR", "10.24" + p + ".0.0/16"},
                {"peerExternalCIDR", "10.5" + p + ".0.0/16"},
                {"backend", "wireguard"},
                {"localTunnelAddress", "169.254.64." + s},
                {"peerTunnelAddress", "169.254.64." + p}}},
              {"status",
               {{"localPodCIDR", "10.24" + s + ".0.0/16"},
                {"localExternalCIDR", "10.5" + s + ".0.0/16"},
                {"remotePodCIDR", "None"},
                {"remoteExternalCIDR", "None"},
                {"localRemappedPodCIDR", "None"},
                {"localRemappedExternalCIDR", "None"},
                {"conditions", {{{"type", "NetworkReady"}, {"status", "True"}}}}}}};
}

void init_side(Side& side, Lab& lab, const std::string& tag) {
  const std::string i = std::to_string(side.index);
  side.options.interface = "fgt" + tag + side.ns;
  side.vxlan.interface = "fvx" + tag + side.ns;
  side.options.private_key_file = lab.dir() + "/" + side.ns + "/wireguard/private.key";
  side.in.self = federation::ClusterInfo{"c" + i, federation::ClusterRole::Host,
                                         *net::Cidr::parse("10.24" + i + ".0.0/16"),
                                         *net::Cidr::parse("10.10" + i + ".0.0/16"), ""};
  side.in.node_name = "node1";
  side.in.external_cidr = *net::Cidr::parse("10.5" + i + ".0.0/16");
  side.in.nodes = {gateway_node(side.index, true)};
  side.in.tunnel_interface = side.options.interface;
  side.in.vxlan_tunnel_interface = side.vxlan.interface;
}

// One pass of the agent's tunnel inside the side's namespace; then, as the informers would,
// the inputs see what it published and reported.
fed::Status pass(Lab& lab, Side& side, federation::PeerProbe* probe = nullptr) {
  auto scope = os::NetnsScope::enter_named(lab.ns(side.ns));
  REQUIRE(scope);
  auto links = os::NetlinkLinkManager::create();
  REQUIRE(links);
  auto daemon = daemon_under_test();
  fed::tunnel::TunnelReconciler reconciler({**links, *daemon});
  federation::GatewayTunnel tunnel({reconciler, **links, side.api, {}, probe}, side.options,
                                   side.vxlan);
  auto s = tunnel.reconcile(side.in);
  side.in.published_gateway = side.api.published;
  for (auto& p : side.in.peerings) {
    auto it = side.api.reported.find(p["metadata"]["name"].get<std::string>());
    if (it != side.api.reported.end()) p["status"]["tunnel"] = it->second;
  }
  return s;
}

// Passes on both sides until each reports the other Connected (generous: when both sides'
// first initiations cross, WireGuard drops both and retries after 5 s plus jitter, and the
// kernel back end's suite runs on an emulated CPU).
bool wait_connected(Lab& lab, Side& a, Side& b) {
  for (const auto deadline = std::chrono::steady_clock::now() + 40s;
       std::chrono::steady_clock::now() < deadline;) {
    for (auto* s : {&a, &b}) REQUIRE(pass(lab, *s));
    if (a.api.reported.at("c2").state == fedapi::TunnelState::Connected &&
        b.api.reported.at("c1").state == fedapi::TunnelState::Connected) {
      return true;
    }
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

// The manager's copy of `from`'s publication into `to`'s Peering of it.
void carry(const Side& from, Side& to) {
  REQUIRE(from.api.published);
  for (auto& p : to.in.peerings) {
    if (p["spec"]["peerClusterID"] != from.in.self.cluster_id) continue;
    p["spec"]["gatewayEndpoint"] = from.api.published->endpoint;
    p["spec"]["publicKey"] = from.api.published->public_key;
  }
}

// Two gateways: namespaces "a" and "b" joined by a veth (192.0.2.1 and .2), their Sides, and
// the guard that stops their daemons (declared last: it goes first).
struct Gateways {
  Lab lab;
  Side a{"a", 1, {}, {}, {}, {}};
  Side b{"b", 2, {}, {}, {}, {}};
  std::optional<DaemonGuard> guard;

  Gateways() {
    lab.add_ns("a");
    lab.add_ns("b");
    must("ip -n " + lab.ns("a") + " link add wan type veth peer name wan netns " + lab.ns("b"));
    lab.run("a", "sh -c 'ip addr add 192.0.2.1/24 dev wan && ip link set wan up'");
    lab.run("b", "sh -c 'ip addr add 192.0.2.2/24 dev wan && ip link set wan up'");
    const std::string tag = std::to_string(::getpid() % 100000);
    init_side(a, lab, tag);
    init_side(b, lab, tag);
    guard.emplace(lab, std::vector<std::pair<std::string, std::string>>{
                           {"a", a.options.interface}, {"b", b.options.interface}});
  }
};

}  // namespace

TEST_CASE("fed-agent node's gateway tunnel: publish, peers from Peerings, status, removal") {
  require_prerequisites();
  require_wireguard();
  Gateways g;
  Lab& lab = g.lab;
  Side& a = g.a;
  Side& b = g.b;
  a.in.peerings = {peering(1, 2)};
  b.in.peerings = {peering(2, 1)};

  // First passes: keys made and published; the peers' gateways are not known yet.
  for (auto* s : {&a, &b}) {
    auto r = pass(lab, *s);
    INFO(s->ns << ": " << (r ? "" : r.error().message()));
    REQUIRE(r);
    REQUIRE(s->api.published);
    CHECK(s->api.published->node == "node1");
    CHECK(s->api.published->endpoint == "192.0.2." + std::to_string(s->index) + ":51820");
    CHECK(std::filesystem::exists(s->options.private_key_file));
    CHECK(lab.run(s->ns, "wg pubkey < " + s->options.private_key_file) ==
          s->api.published->public_key + "\n");
    const std::string peer = s == &a ? "c2" : "c1";
    CHECK(s->api.reported.at(peer) ==
          fedapi::TunnelStatus{fedapi::TunnelState::Pending,
                               "waiting: the peer's gateway is not up"});
  }
  CHECK(lab.run("a", "ip -o addr show dev " + a.options.interface).find("169.254.64.1/18") !=
        std::string::npos);
  CHECK(lab.run("a", "wg show " + a.options.interface + " peers").empty());

  // The manager carries the publications across: each side gets a WireGuard peer, and the
  // keepalive starts the handshake.
  carry(b, a);
  carry(a, b);
  for (auto* s : {&a, &b}) REQUIRE(pass(lab, *s));
  CHECK(lab.run("a", "wg show " + a.options.interface + " endpoints") ==
        b.api.published->public_key + "\t192.0.2.2:51820\n");
  auto allowed = lab.run("a", "wg show " + a.options.interface + " allowed-ips");
  CHECK(allowed.find("10.242.0.0/16") != std::string::npos);  // c2's ranges as c1 sees them
  CHECK(allowed.find("10.52.0.0/16") != std::string::npos);
  CHECK(allowed.find("169.254.64.2/32") != std::string::npos);

  const bool connected = wait_connected(lab, a, b);
  INFO("c1's view: " << a.api.reported.at("c2").message);
  INFO("c2's view: " << b.api.reported.at("c1").message);
  INFO("a: " << sh(lab.in("a", "wg show all dump")).out);
  INFO("b: " << sh(lab.in("b", "wg show all dump")).out);
  CHECK(connected);
  CHECK(a.api.reported.at("c2").message.empty());

  // A steady tunnel rewrites nothing.
  const int reports = a.api.reports;
  REQUIRE(pass(lab, a));
  CHECK(a.api.reports == reports);

  // A second peer that never answers, then the first Peering goes away: only its peer goes.
  auto c3 = peering(1, 3);
  c3["spec"]["gatewayEndpoint"] = "192.0.2.3:51820";
  c3["spec"]["publicKey"] = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";
  a.in.peerings.push_back(c3);
  REQUIRE(pass(lab, a));
  CHECK(a.api.reported.at("c3").state == fedapi::TunnelState::Connecting);
  CHECK(a.api.reported.at("c3").message.find(
            "no handshake with c3's gateway 192.0.2.3:51820 yet") == 0);
  a.in.peerings.erase(a.in.peerings.begin());
  REQUIRE(pass(lab, a));
  CHECK(lab.run("a", "wg show " + a.options.interface + " peers") ==
        "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n");

  // The gateway label moves away: the tunnel goes, the key stays (the gateway's identity).
  a.in.nodes = {gateway_node(1, false)};
  REQUIRE(pass(lab, a));
  CHECK(sh("ip -n " + lab.ns("a") + " link show " + a.options.interface).code != 0);
  CHECK_FALSE(std::filesystem::exists("/var/run/wireguard/" + a.options.interface + ".sock"));
  CHECK(std::filesystem::exists(a.options.private_key_file));
  // b's daemon, of the same program in the same PID namespace, was not touched.
  CHECK(sh("ip -n " + lab.ns("b") + " link show " + b.options.interface).code == 0);

  // Unjoined: no Peering names a tunnel address, so b's tunnel is uninstalled.
  b.in.peerings.clear();
  REQUIRE(pass(lab, b));
  CHECK(sh("ip -n " + lab.ns("b") + " link show " + b.options.interface).code != 0);
  CHECK(sh("pgrep -f '^wireguard-go " + b.options.interface + "$'").code != 0);
}

TEST_CASE("vxlan Peerings: an unencrypted VXLAN tunnel, no WireGuard, TCP across, removal") {
  require_prerequisites();
  Gateways g;
  Lab& lab = g.lab;
  Side& a = g.a;
  Side& b = g.b;
  for (auto* s : {&a, &b}) {
    auto p = peering(s->index, s == &a ? 2 : 1);
    p["spec"]["backend"] = "vxlan";
    s->in.peerings = {p};
    REQUIRE(pass(lab, *s));  // publishes the gateway address
  }
  carry(b, a);
  carry(a, b);
  for (auto* s : {&a, &b}) {
    auto r = pass(lab, *s);
    INFO(s->ns << ": " << (r ? "" : r.error().message()));
    REQUIRE(r);
    const std::string peer = s == &a ? "c2" : "c1";
    CHECK(s->api.reported.at(peer) == fedapi::TunnelStatus{fedapi::TunnelState::Connected, ""});
    // Every peer uses VXLAN: no WireGuard interface and no daemon.
    CHECK(sh("ip -n " + lab.ns(s->ns) + " link show " + s->options.interface).code != 0);
  }
  const std::string dev = a.vxlan.interface;
  CHECK(lab.run("a", "ip -d link show " + dev).find("vxlan id 18961") != std::string::npos);
  CHECK(lab.run("a", "bridge fdb show dev " + dev).find("dst 192.0.2.2") != std::string::npos);
  CHECK(lab.run("a", "ip -o addr show dev " + dev).find("169.254.64.1/18") != std::string::npos);

  // A real TCP exchange between the tunnel addresses, encapsulated over the veth.
  lab.spawn("b", std::string(FED_TCP_PROBE) + " serve --port 8080 --name pb",
            lab.dir() + "/pb.log");
  std::string answer;
  for (int i = 0; i < 50 && answer.find("pb saw-src=169.254.64.1") != 0; ++i) {
    answer = sh(lab.in("a", std::string(FED_TCP_PROBE) +
                                " connect --port 8080 --timeout-ms 500 --to 169.254.64.2 "
                                "--payload from-a"))
                 .out;
    if (answer.find("pb saw-src=169.254.64.1") != 0) std::this_thread::sleep_for(100ms);
  }
  CHECK(answer.find("pb saw-src=169.254.64.1 got=from-a") == 0);
  CHECK(lab.run("a", "ip -s link show " + dev).find("RX:") != std::string::npos);

  // The Peering goes: so does the device.
  a.in.peerings.clear();
  REQUIRE(pass(lab, a));
  CHECK(sh("ip -n " + lab.ns("a") + " link show " + dev).code != 0);
}

TEST_CASE("a peer gateway that stops answering over the tunnel is Lost within seconds") {
  require_prerequisites();
  require_wireguard();
  Gateways g;
  Lab& lab = g.lab;
  Side& a = g.a;
  Side& b = g.b;
  a.in.peerings = {peering(1, 2)};
  b.in.peerings = {peering(2, 1)};
  for (auto* s : {&a, &b}) REQUIRE(pass(lab, *s));
  carry(b, a);
  carry(a, b);
  REQUIRE(wait_connected(lab, a, b));

  // c1's agent probes from c1's namespace: the raw socket belongs to the namespace it was
  // opened in, whatever thread uses it later.
  std::atomic<int> changes{0};
  federation::TunnelProber prober(fed::tunnel::ProbeTiming{}, [&] { ++changes; });
  {
    auto scope = os::NetnsScope::enter_named(lab.ns("a"));
    REQUIRE(scope);
    REQUIRE(prober.start());
  }
  REQUIRE(pass(lab, a, &prober));  // points the probe at c2's tunnel address
  const auto wait_for = [&](fed::tunnel::PeerAnswer want, std::chrono::seconds limit) {
    const auto start = std::chrono::steady_clock::now();
    while (prober.answer("c2") != want && std::chrono::steady_clock::now() - start < limit) {
      std::this_thread::sleep_for(50ms);
    }
    return std::chrono::steady_clock::now() - start;
  };
  wait_for(fed::tunnel::PeerAnswer::Answering, 10s);
  REQUIRE(prober.answer("c2") == fed::tunnel::PeerAnswer::Answering);
  REQUIRE(pass(lab, a, &prober));
  CHECK(a.api.reported.at("c2").state == fedapi::TunnelState::Connected);
  CHECK(changes == 0);  // the first answer is no change worth a pass

  // c2's gateway loses its WAN link: the handshake is seconds old, WireGuard still says
  // Connected for minutes; the probe says Silent after its 2 s, and the pass reports Lost.
  lab.run("b", "ip link set wan down");
  const auto silent_after = wait_for(fed::tunnel::PeerAnswer::Silent, 10s);
  REQUIRE(prober.answer("c2") == fed::tunnel::PeerAnswer::Silent);
  MESSAGE(
      "silent after " << std::chrono::duration_cast<std::chrono::milliseconds>(silent_after).count()
                      << " ms");
  CHECK(changes == 1);
  REQUIRE(pass(lab, a, &prober));
  const auto lost = a.api.reported.at("c2");
  CHECK(lost.state == fedapi::TunnelState::Lost);
  CHECK(lost.message.find("c2's gateway no longer answers over the tunnel (echoes to its tunnel "
                          "address 169.254.64.2") == 0);

  // The link comes back: two answers in a row, and the pass reports Connected again.
  lab.run("b", "ip link set wan up");
  wait_for(fed::tunnel::PeerAnswer::Answering, 20s);
  CHECK(prober.answer("c2") == fed::tunnel::PeerAnswer::Answering);
  CHECK(changes == 2);
  REQUIRE(pass(lab, a, &prober));
  CHECK(a.api.reported.at("c2").state == fedapi::TunnelState::Connected);

  // A Peering no longer carried is no longer probed.
  a.in.peerings.clear();
  REQUIRE(pass(lab, a, &prober));
  CHECK(prober.answer("c2") == fed::tunnel::PeerAnswer::Unknown);
  prober.stop();
}

#include <doctest/doctest.h>

#include "agent/node/gateway_tunnel_config.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

constexpr const char* kKeyC2 = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
constexpr const char* kKeyC3 = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=";

json tunnel_node(const std::string& name, const std::string& ip, const std::string& pod,
                 bool gateway) {
  json n{{"metadata", {{"name", name}}},
         {"spec", {{"podCIDR", pod}}},
         {"status", {{"addresses", {{{"type", "InternalIP"}, {"address", ip}}}}}}};
  if (gateway) n["metadata"]["labels"]["kubectl-fed.io/gateway"] = "true";
  return n;
}

// Peering `peer` as the manager writes it on c1 (host, tunnel address 169.254.64.1), ready.
json peering(const std::string& peer, int n, const char* key) {
  const std::string i = std::to_string(n);
  return json{{"metadata", {{"name", peer}}},
              {"spec",
               {{"localClusterID", "c1"},
                {"peerClusterID", peer},
                {"peerPodCIDR", "10.24" + i + ".0.0/16"},
                {"peerExternalCIDR", "10.5" + i + ".0.0/16"},
                {"backend", "wireguard"},
                {"gatewayEndpoint", "172.31.0." + i + ":51820"},
                {"publicKey", key},
                {"localTunnelAddress", "169.254.64.1"},
                {"peerTunnelAddress", "169.254.64." + i}}},
              {"status",
               {{"localPodCIDR", "10.241.0.0/16"},
                {"localExternalCIDR", "10.51.0.0/16"},
                {"remotePodCIDR", "10.6" + i + ".0.0/16"},  // remapped by us
                {"remoteExternalCIDR", "None"},
                {"localRemappedPodCIDR", "None"},
                {"localRemappedExternalCIDR", "None"},
                {"conditions", {{{"type", "NetworkReady"}, {"status", "True"}}}}}}};
}

NodeStateInputs tunnel_inputs(const std::string& self_node) {
  NodeStateInputs in;
  in.self = ClusterInfo{"c1", ClusterRole::Host, net::Cidr::parse("10.241.0.0/16").value(),
                        net::Cidr::parse("10.101.0.0/16").value(), ""};
  in.node_name = self_node;
  in.external_cidr = net::Cidr::parse("10.51.0.0/16").value();
  in.nodes = {tunnel_node("node2", "172.30.1.12", "10.241.1.0/24", false),
              tunnel_node("node1", "172.30.1.11", "10.241.0.0/24", true)};
  in.peerings = {peering("c3", 3, kKeyC3), peering("c2", 2, kKeyC2)};
  return in;
}

}  // namespace

TEST_CASE("a worker node has no tunnel") {
  auto t = derive_gateway_tunnel(tunnel_inputs("node2"));
  REQUIRE(t);
  CHECK_FALSE(t->gateway);
  CHECK_FALSE(t->address);
  CHECK(t->peers.empty());
  CHECK(t->waiting.empty());
}

TEST_CASE("the gateway carries one WireGuard peer per ready Peering, as the fabric routes it") {
  const auto in = tunnel_inputs("node1");
  auto t = derive_gateway_tunnel(in);
  REQUIRE(t);
  CHECK(t->gateway);
  REQUIRE(t->address);
  CHECK(t->address->str() == "169.254.64.1");
  CHECK(t->waiting.empty());
  REQUIRE(t->peers.size() == 2);
  CHECK(t->peers[0].peering == "c2");  // by Peering name
  const auto& p = t->peers[0].peer;
  CHECK(p.cluster_id == "c2");
  CHECK(p.public_key == kKeyC2);
  CHECK(p.endpoint.str() == "172.31.0.2");
  CHECK(p.endpoint_port == 51820);
  CHECK(p.tunnel_address.str() == "169.254.64.2");
  REQUIRE(p.ranges.size() == 2);
  CHECK(p.ranges[0].str() == "10.62.0.0/16");  // our remap of c2's pods, not its own range
  CHECK(p.ranges[1].str() == "10.52.0.0/16");  // not remapped: as c2 announced it

  // The same values the fabric's state routes via fed.wg.
  auto st = build_node_state(in);
  REQUIRE(st);
  REQUIRE(st->peers.size() == 2);
  CHECK(st->peers[0].tunnel_interface == "fed.wg");
  CHECK(st->peers[0].tunnel_endpoint == p.tunnel_address);
  CHECK(st->peers[0].pod_cidr == p.ranges[0]);
  CHECK(st->peers[0].external_cidr == p.ranges[1]);
}

TEST_CASE("Peerings that cannot carry traffic yet wait with the reason") {
  auto in = tunnel_inputs("node1");
  in.peerings[1]["spec"].erase("publicKey");
  in.peerings[0]["spec"].erase("gatewayEndpoint");
  auto t = derive_gateway_tunnel(in);
  REQUIRE(t);
  CHECK(t->peers.empty());
  REQUIRE(t->address);  // the link still comes up: peers are added as they get ready
  REQUIRE(t->waiting.size() == 2);
  CHECK(t->waiting[0].peering == "c2");
  CHECK(t->waiting[0].status.state == fedapi::TunnelState::Pending);
  CHECK(t->waiting[0].status.message == "waiting: the peer's gateway key is not published");
  CHECK(t->waiting[1].status.message == "waiting: the peer's gateway is not up");

  SUBCASE("no tunnel address yet") {
    in.peerings[1]["spec"].erase("localTunnelAddress");
    in.peerings[0]["spec"].erase("localTunnelAddress");
    auto u = derive_gateway_tunnel(in);
    REQUIRE(u);
    CHECK_FALSE(u->address);
  }
}

TEST_CASE("a ready Peering the fabric leaves out waits with the fabric's reason") {
  auto in = tunnel_inputs("node1");
  in.external_cidr.reset();
  auto t = derive_gateway_tunnel(in);
  REQUIRE(t);
  CHECK(t->peers.empty());
  REQUIRE(t->waiting.size() == 2);
  CHECK(t->waiting[0].status.message == "waiting: the manager has not written IpamState ipam yet");
}

TEST_CASE("a malformed endpoint or key leaves that Peering out with an Error") {
  auto in = tunnel_inputs("node1");
  in.peerings[1]["spec"]["gatewayEndpoint"] = "172.31.0.2";
  in.peerings[0]["spec"]["publicKey"] = "not-a-key";
  auto t = derive_gateway_tunnel(in);
  REQUIRE(t);
  CHECK(t->peers.empty());
  REQUIRE(t->waiting.size() == 2);
  CHECK(t->waiting[0].status.state == fedapi::TunnelState::Error);
  CHECK(t->waiting[0].status.message.find("Peering c2 spec.gatewayEndpoint \"172.31.0.2\"") == 0);
  CHECK(t->waiting[1].status.state == fedapi::TunnelState::Error);
  CHECK(t->waiting[1].status.message.find("Peering c3 spec.publicKey") != std::string::npos);
  CHECK(t->waiting[1].status.message.find("c3's gateway ConfigMap") != std::string::npos);
}

TEST_CASE(
    "a vxlan Peering goes to the VXLAN tunnel, without a key; an unknown backend is an Error") {
  auto in = tunnel_inputs("node1");
  in.peerings[0]["spec"]["backend"] = "vxlan";
  in.peerings[0]["spec"].erase("publicKey");
  auto t = derive_gateway_tunnel(in);
  REQUIRE(t);
  REQUIRE(t->peers.size() == 1);
  CHECK(t->peers[0].peering == "c2");
  REQUIRE(t->vxlan_peers.size() == 1);
  CHECK(t->vxlan_peers[0].peering == "c3");
  CHECK(t->vxlan_peers[0].peer.cluster_id == "c3");
  CHECK(t->vxlan_peers[0].peer.endpoint.str() == "172.31.0.3");
  CHECK(t->vxlan_peers[0].peer.tunnel_address.str() == "169.254.64.3");
  CHECK(t->waiting.empty());

  in.peerings[0]["spec"]["backend"] = "gre";
  auto unknown = derive_gateway_tunnel(in);
  REQUIRE(unknown);
  REQUIRE(unknown->waiting.size() == 1);
  CHECK(unknown->waiting[0].peering == "c3");
  CHECK(unknown->waiting[0].status.state == fedapi::TunnelState::Error);
  CHECK(unknown->waiting[0].status.message ==
        "spec.backend \"gre\" is unknown; use wireguard or vxlan");
}

TEST_CASE("Peerings naming different local tunnel addresses are Invalid") {
  auto in = tunnel_inputs("node1");
  in.peerings[0]["spec"]["localTunnelAddress"] = "169.254.64.9";
  auto t = derive_gateway_tunnel(in);
  REQUIRE_FALSE(t);
  CHECK(t.error().code() == ErrorCode::Invalid);
  CHECK(t.error().message().find("spec.localTunnelAddress") != std::string::npos);
  CHECK(t.error().message().find("169.254.64.9") != std::string::npos);

  in.peerings[0]["spec"]["localTunnelAddress"] = "169.254.64";
  auto bad = derive_gateway_tunnel(in);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message().find("Peering c3 spec.localTunnelAddress") == 0);
}

TEST_CASE("parse_endpoint") {
  auto e = parse_endpoint("172.31.0.2:51820", "f");
  REQUIRE(e);
  CHECK(e->address.str() == "172.31.0.2");
  CHECK(e->port == 51820);
  for (const char* bad : {"", "172.31.0.2", "172.31.0.2:", "172.31.0.2:0", "172.31.0.2:65536",
                          "172.31.0.2:51820x", "host:51820", ":51820"}) {
    INFO(bad);
    auto r = parse_endpoint(bad, "Peering c2 spec.gatewayEndpoint");
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == ErrorCode::Invalid);
    CHECK(r.error().message().find("Peering c2 spec.gatewayEndpoint") == 0);
  }
}

}  // namespace fed::federation

#include <doctest/doctest.h>

#include "agent/node/fabric/node_state_parse.hpp"
#include "agent/node/node_state_builder.hpp"

namespace fed::federation {
namespace {

using nlohmann::json;

json node(const std::string& name, const std::string& ip, const std::string& pod, bool gateway) {
  json n{{"metadata", {{"name", name}}},
         {"spec", {{"podCIDR", pod}}},
         {"status", {{"addresses", {{{"type", "InternalIP"}, {"address", ip}}}}}}};
  if (gateway) n["metadata"]["labels"]["kubectl-fed.io/gateway"] = "true";
  return n;
}

json peering(const std::string& peer, bool network_ready, bool gateway_up) {
  json p{{"metadata", {{"name", peer}}},
         {"spec",
          {{"localClusterID", "c1"},
           {"peerClusterID", peer},
           {"peerPodCIDR", "10.244.0.0/16"},
           {"peerExternalCIDR", "10.0.0.0/16"},
           {"backend", "wireguard"},
           {"localTunnelAddress", "169.254.64.1"},
           {"peerTunnelAddress", "169.254.64.2"}}},
         {"status",
          {{"localPodCIDR", "10.244.0.0/16"},
           {"localExternalCIDR", "10.0.0.0/16"},
           {"remotePodCIDR", "10.1.0.0/16"},
           {"remoteExternalCIDR", "10.2.0.0/16"},
           {"localRemappedPodCIDR", "10.3.0.0/16"},
           {"localRemappedExternalCIDR", "None"},
           {"conditions",
            {{{"type", "NetworkReady"}, {"status", network_ready ? "True" : "False"}}}}}}};
  if (gateway_up) {
    p["spec"]["gatewayEndpoint"] = "172.31.0.2:51820";
    p["spec"]["publicKey"] = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
  }
  return p;
}

NodeStateInputs inputs(const std::string& self_node) {
  NodeStateInputs in;
  in.self = ClusterInfo{"c1", ClusterRole::Host, net::Cidr::parse("10.244.0.0/16").value(),
                        net::Cidr::parse("10.101.0.0/16").value(), ""};
  in.node_name = self_node;
  in.external_cidr = net::Cidr::parse("10.0.0.0/16").value();
  in.nodes = {node("node2", "172.30.1.12", "10.244.1.0/24", false),
              node("node1", "172.30.1.11", "10.244.0.0/24", true)};
  return in;
}

NatMappingEntriesPtr nat_mapping(const std::string& name, const std::string& peer, json mappings) {
  return parse_nat_mapping(
      json{{"metadata", {{"name", name}}},
           {"spec", {{"clusterID", peer}, {"mappings", std::move(mappings)}}}});
}

}  // namespace

TEST_CASE("a Peering with remapped networks becomes a datapath peer") {
  auto in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  in.nat_mappings = {parse_nat_mapping(
      json{{"metadata", {{"name", "c2"}}},
           {"spec",
            {{"clusterID", "c2"},
             {"externalCIDR", "10.0.0.0/16"},
             {"mappings", {{"10.0.0.9", "10.1.3.4"}, {"10.0.0.5", "10.1.7.7"}}}}}})};
  auto st = build_node_state(in);
  REQUIRE(st);
  CHECK(st->gateway_node == "node1");
  CHECK(st->is_gateway());
  REQUIRE(st->nodes.size() == 2);
  CHECK(st->nodes[0].name == "node1");
  REQUIRE(st->peers.size() == 1);
  const auto& p = st->peers[0];
  CHECK(p.pod_cidr.str() == "10.1.0.0/16");  // our remap of c2's pods
  REQUIRE(p.real_pod_cidr);
  CHECK(p.real_pod_cidr->str() == "10.244.0.0/16");
  REQUIRE(p.local_pod_remap);
  CHECK(p.local_pod_remap->str() == "10.3.0.0/16");
  CHECK_FALSE(p.local_external_remap);
  CHECK(p.tunnel_interface == "fed.wg");
  CHECK(p.tunnel_endpoint.str() == "169.254.64.2");
  REQUIRE(p.nat_mappings.size() == 2);
  CHECK(p.nat_mappings[0].external_ip.str() == "10.0.0.5");  // sorted
  // What the datapath accepts: the same checks as a state file.
  CHECK(fabric::validate_node_state(*st));
}

TEST_CASE("a vxlan Peering routes into the VXLAN tunnel and needs no public key") {
  auto in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  in.peerings[0]["spec"]["backend"] = "vxlan";
  in.peerings[0]["spec"].erase("publicKey");
  auto st = build_node_state(in);
  REQUIRE(st);
  REQUIRE(st->peers.size() == 1);
  CHECK(st->peers[0].tunnel_interface == "fed.vxtun");
}

TEST_CASE("peerings that cannot carry traffic yet are left out, with the reason") {
  auto in = inputs("node2");
  in.peerings = {peering("c2", false, true), peering("c3", true, false)};
  auto st = build_node_state(in);
  REQUIRE(st);
  CHECK(st->peers.empty());
  CHECK_FALSE(st->is_gateway());
  const auto why = pending_peerings(in);
  REQUIRE(why.size() == 2);
  CHECK(why[0] == "c2: networks not exchanged yet");
  CHECK(why[1] == "c3: the peer's gateway is not up");
}

TEST_CASE("no gateway node or no ExternalCIDR: an empty state that removes everything") {
  auto in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  in.nodes = {node("node1", "172.30.1.11", "10.244.0.0/24", false)};
  auto st = build_node_state(in);
  REQUIRE(st);
  CHECK(st->peers.empty());
  CHECK(fabric::validate_node_state(*st));
  CHECK(pending_peerings(in).front() == "no node is labelled kubectl-fed.io/gateway=true");
  in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  in.external_cidr.reset();
  st = build_node_state(in);
  REQUIRE(st);
  CHECK(st->peers.empty());
  CHECK(fabric::validate_node_state(*st));
}

TEST_CASE("a malformed object is Invalid and named") {
  auto in = inputs("node1");
  auto bad = peering("c2", true, true);
  bad["status"]["remotePodCIDR"] = "10.1.0.1/16";
  in.peerings = {bad};
  auto st = build_node_state(in);
  REQUIRE_FALSE(st);
  CHECK(st.error().code() == ErrorCode::Invalid);
  CHECK(st.error().message().find("Peering c2 status.remotePodCIDR") != std::string::npos);
}

TEST_CASE("a peer's NatMappings: its blocks merged and deduplicated, other peers' left out") {
  auto in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  in.nat_mappings = {
      nat_mapping("c2.10-0-0-0-24", "c2", {{"10.0.0.9", "10.1.3.4"}, {"10.0.0.5", "10.1.7.7"}}),
      nat_mapping("c2.10-0-1-0-24", "c2", {{"10.0.1.1", "10.1.3.5"}}),
      // The older release's single object, still there while the manager moves it to blocks.
      nat_mapping("c2", "c2", {{"10.0.0.9", "10.1.3.4"}}),
      nat_mapping("c3.10-0-0-0-24", "c3", {{"10.0.0.7", "10.1.3.6"}}),
      parse_nat_mapping(json{{"metadata", {{"name", "no-spec"}}}}),
  };
  auto st = build_node_state(in);
  REQUIRE(st);
  REQUIRE(st->peers.size() == 1);
  const auto& m = st->peers[0].nat_mappings;
  REQUIRE(m.size() == 3);
  CHECK(m[0].external_ip.str() == "10.0.0.5");
  CHECK(m[1].external_ip.str() == "10.0.0.9");
  CHECK(m[2].external_ip.str() == "10.0.1.1");
  CHECK(m[2].endpoint_ip.str() == "10.1.3.5");
}

TEST_CASE("blocks listed in name order (10-0-10 before 10-0-2) still give sorted entries") {
  auto in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  in.nat_mappings = {
      nat_mapping("c2.10-0-10-0-24", "c2", {{"10.0.10.1", "10.1.0.3"}}),
      nat_mapping("c2.10-0-2-0-24", "c2", {{"10.0.2.7", "10.1.0.2"}, {"10.0.2.1", "10.1.0.1"}})};
  auto st = build_node_state(in);
  REQUIRE(st);
  const auto& m = st->peers[0].nat_mappings;
  REQUIRE(m.size() == 3);
  CHECK(m[0].external_ip.str() == "10.0.2.1");
  CHECK(m[1].external_ip.str() == "10.0.2.7");
  CHECK(m[2].external_ip.str() == "10.0.10.1");
}

TEST_CASE("a NatMapping entry that is no address pair is Invalid and named") {
  auto in = inputs("node1");
  in.peerings = {peering("c2", true, true)};
  for (const json& bad :
       {json{{"10.0.0.9", "not-an-ip"}}, json{{"10.0.0.9", 7}}, json{{"10.0.0.300", "10.1.3.4"}}}) {
    in.nat_mappings = {nat_mapping("c2.10-0-0-0-24", "c2", bad)};
    auto st = build_node_state(in);
    REQUIRE_FALSE(st);
    CHECK(st.error().code() == ErrorCode::Invalid);
    CHECK(st.error().message().find("NatMapping c2.10-0-0-0-24 spec.mappings.10.0.0.") !=
          std::string::npos);
  }
}

}  // namespace fed::federation

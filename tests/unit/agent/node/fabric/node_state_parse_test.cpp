#include "agent/node/fabric/node_state_parse.hpp"

#include <doctest/doctest.h>

#include "tests/unit/agent/node/fabric/sample_state.hpp"

using fed::ErrorCode;
using fed::fabric::parse_node_state;
using fed::fabric::testing::sample_state;

namespace {

// The sample with `from` replaced by `to` (which must occur).
std::string edit(std::string doc, const std::string& from, const std::string& to) {
  auto pos = doc.find(from);
  REQUIRE(pos != std::string::npos);
  return doc.replace(pos, from.size(), to);
}

// Parses `doc`, expects Invalid, and returns the message.
std::string invalid(const std::string& doc) {
  auto st = parse_node_state(doc);
  REQUIRE_FALSE(st);
  CHECK(st.error().code() == ErrorCode::Invalid);
  return st.error().message();
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a complete state parses") {
  auto st = parse_node_state(sample_state("a-n2"));
  REQUIRE(st);
  CHECK(st->cluster_id == "a");
  CHECK_FALSE(st->is_gateway());
  CHECK(st->nodes.size() == 2);
  REQUIRE(st->peers.size() == 1);
  const auto& b = st->peers[0];
  CHECK(b.pod_cidr.str() == "10.0.0.0/24");
  CHECK(b.local_pod_remap->str() == "10.3.0.0/24");
  CHECK_FALSE(b.local_external_remap);
  CHECK(st->external_view_of(b).str() == "192.168.10.0/24");
  CHECK(b.tunnel_interface == "wan0");
  REQUIRE(b.nat_mappings.size() == 1);
  CHECK(b.nat_mappings[0].endpoint_ip.str() == "10.0.0.77");
  CHECK(parse_node_state(sample_state("a-n1"))->is_gateway());
}

TEST_CASE("JSON is accepted and \"None\" means not remapped") {
  auto st = parse_node_state(R"({"clusterID":"a","nodeName":"n","gatewayNode":"n",
    "podCIDR":"10.1.0.0/24","externalCIDR":"10.2.0.0/24",
    "nodes":[{"name":"n","ip":"192.0.2.1","podCIDR":"10.1.0.0/24"}],
    "peers":[{"clusterID":"b","podCIDR":"10.5.0.0/24","externalCIDR":"10.6.0.0/24",
      "localNATPodCIDR":"None","tunnel":{"interface":"wan0","endpoint":"203.0.113.2"}}]})");
  REQUIRE(st);
  CHECK_FALSE(st->peers[0].local_pod_remap);
}

TEST_CASE("a bad CIDR names its field") {
  auto msg = invalid(edit(sample_state("a-n1"), "podCIDR: 10.0.0.0/24", "podCIDR: 10.0.0.0/40"));
  CHECK(has(msg, "peers[0].podCIDR"));
  msg = invalid(edit(sample_state("a-n1"), "podCIDR: 10.0.0.0/24", "podCIDR: 10.0.0.9/24"));
  CHECK(has(msg, "host bits"));
  msg = invalid(edit(sample_state("a-n1"), "endpoint: 203.0.113.2", "endpoint: nowhere"));
  CHECK(has(msg, "peers[0].tunnel.endpoint"));
}

TEST_CASE("a remap with another prefix length is refused") {
  auto msg = invalid(
      edit(sample_state("a-n1"), "localNATPodCIDR: 10.3.0.0/24", "localNATPodCIDR: 10.3.0.0/23"));
  CHECK(has(msg, "localNATPodCIDR"));
  CHECK(has(msg, "prefix length"));
  msg = invalid(edit(sample_state("a-n1"), "externalCIDR: 192.168.20.0/24",
                     "externalCIDR: 192.168.20.0/24\n    realExternalCIDR: 10.9.0.0/16"));
  CHECK(has(msg, "peers[0] (clusterID \"b\").externalCIDR"));
}

TEST_CASE("overlapping peers are refused, naming both ranges") {
  auto doc = sample_state("a-n1") + R"(  - clusterID: c
    podCIDR: 10.0.0.0/16
    externalCIDR: 192.168.30.0/24
    tunnel: {interface: wan0, endpoint: 203.0.113.3}
)";
  auto msg = invalid(doc);
  CHECK(has(msg, "peers[1] (clusterID \"c\").podCIDR"));
  CHECK(has(msg, "peers[0] (clusterID \"b\").podCIDR"));
  msg = invalid(edit(sample_state("a-n1"), "podCIDR: 10.0.0.0/24", "podCIDR: 10.1.0.0/24"));
  CHECK(has(msg, "overlaps podCIDR 10.1.0.0/24"));
}

TEST_CASE("structural mistakes are Invalid with the field named") {
  CHECK(has(invalid(edit(sample_state("a-n1"), "clusterID: b", "clusterID: b\n    podCIDRs: x")),
            "peers[0].podCIDRs: unknown field"));
  CHECK(has(invalid(edit(sample_state("a-n1"), "nodeName: a-n1", "nodeName: a-n9")), "nodeName"));
  CHECK(has(invalid(edit(sample_state("a-n1"), "gatewayNode: a-n1", "gatewayNode: zz")),
            "gatewayNode"));
  CHECK(has(invalid(edit(sample_state("a-n1"), "192.168.10.45: 10.0.0.77", "10.9.9.9: 10.0.0.77")),
            "outside our ExternalCIDR"));
  CHECK(has(invalid(edit(sample_state("a-n1"), "10.1.0.128/25", "10.1.0.0/26")), "overlaps"));
  CHECK(has(invalid("peers: [\n"), "not valid YAML"));
  CHECK(has(invalid(""), "empty"));
  CHECK(has(invalid(edit(sample_state("a-n1"), "clusterID: b", "clusterID: a")), "itself"));
}

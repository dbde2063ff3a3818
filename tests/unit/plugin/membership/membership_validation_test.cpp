// Flag checks of init and join, before any cluster is contacted: every error is Invalid (exit
// code 2), one line, naming the flag and the fix.

#include "plugin/membership/membership_validation.hpp"

#include <doctest/doctest.h>

#include "plugin/connect/cluster_facts.hpp"
#include "plugin/membership/init.hpp"
#include "plugin/membership/join.hpp"
#include "plugin/membership/peer.hpp"
#include "shared/net/net_types.hpp"

using namespace fed::plugin;
namespace net = fed::net;

namespace {

// Checks `s` failed as Invalid with a one-line message containing every `needle`.
template <typename R>
void expect_invalid(const R& s, std::initializer_list<std::string_view> needles) {
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().code() == fed::ErrorCode::Invalid);
  CHECK(s.error().message().find('\n') == std::string::npos);
  for (auto n : needles) {
    INFO(s.error().message());
    CHECK(s.error().message().find(n) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("IPv4 CIDRs: parsing, host bits, overlap and the covering network") {
  auto c = net::Cidr::parse("10.244.0.0/16");
  REQUIRE(c);
  CHECK(c->str() == "10.244.0.0/16");
  CHECK_FALSE(net::Cidr::parse("10.244.0.0"));
  CHECK_FALSE(net::Cidr::parse("10.244.0/16"));
  CHECK_FALSE(net::Cidr::parse("10.244.0.256/24"));
  CHECK_FALSE(net::Cidr::parse("10.244.0.0/33"));
  CHECK_FALSE(net::Cidr::parse("fd00::/64"));
  auto host_bits = net::Cidr::parse("10.0.0.1/16");
  REQUIRE_FALSE(host_bits);
  CHECK(host_bits.error().message().find("10.0.0.0/16") != std::string::npos);

  CHECK(net::Cidr::parse("10.0.0.0/16")->overlaps(*net::Cidr::parse("10.0.128.0/17")));
  CHECK(net::Cidr::parse("10.0.128.0/17")->overlaps(*net::Cidr::parse("10.0.0.0/8")));
  CHECK_FALSE(net::Cidr::parse("10.0.0.0/16")->overlaps(*net::Cidr::parse("10.1.0.0/16")));
  CHECK(net::smallest_containing(
            {*net::Cidr::parse("10.241.0.0/24"), *net::Cidr::parse("10.241.1.0/24")})
            .str() == "10.241.0.0/23");
  CHECK(net::smallest_containing(
            {*net::Cidr::parse("10.241.0.0/24"), *net::Cidr::parse("10.241.2.0/24")})
            .str() == "10.241.0.0/22");
  CHECK(net::smallest_containing({*net::Cidr::parse("10.241.5.0/24")}).str() == "10.241.5.0/24");
}

TEST_CASE("cluster ids are DNS labels") {
  CHECK(is_dns_label("c1"));
  CHECK(is_dns_label("eu-west-1"));
  CHECK(is_dns_label(std::string(63, 'a')));
  CHECK_FALSE(is_dns_label(std::string(64, 'a')));
  CHECK_FALSE(is_dns_label(""));
  CHECK_FALSE(is_dns_label("C1"));
  CHECK_FALSE(is_dns_label("-c1"));
  CHECK_FALSE(is_dns_label("c1-"));
  CHECK_FALSE(is_dns_label("c_1"));
  CHECK_FALSE(is_dns_label("c.1"));
  expect_invalid(validate_cluster_id("Bad_ID", "--cluster-id"),
                 {"--cluster-id", "Bad_ID", "DNS label"});
}

TEST_CASE("init refuses bad flags before contacting a cluster") {
  InitOptions o;
  CHECK(validate_init_flags(o));
  o.cluster_id = "Not-A-Label";
  expect_invalid(validate_init_flags(o), {"--cluster-id"});
  o = {};
  o.pod_cidr = "10.0.0.0/33";
  expect_invalid(validate_init_flags(o), {"--pod-cidr", "a.b.c.d/n"});
  o = {};
  o.service_cidr = "banana";
  expect_invalid(validate_init_flags(o), {"--service-cidr"});
  o = {};
  o.pod_cidr = "10.96.0.0/12";
  o.service_cidr = "10.100.0.0/16";
  expect_invalid(validate_init_flags(o),
                 {"--pod-cidr", "overlaps", "--service-cidr", "non-overlapping"});
  o.service_cidr = "10.200.0.0/16";
  CHECK(validate_init_flags(o));
  o.gateway_address = "172.31.0.256";
  expect_invalid(validate_init_flags(o), {"--gateway-address", "IPv4 address"});
  o.gateway_address = "172.31.0.1/24";
  expect_invalid(validate_init_flags(o), {"--gateway-address"});
  o.gateway_address = "172.31.0.1";
  CHECK(validate_init_flags(o));
  o.image = "";
  expect_invalid(validate_init_flags(o), {"--image"});
}

TEST_CASE("join refuses bad flags before contacting a cluster") {
  JoinOptions o;
  expect_invalid(validate_join_flags(o), {"MEMBER"});
  o.member = "C3";
  o.member_flags.context = "c3";
  expect_invalid(validate_join_flags(o), {"MEMBER", "DNS label"});
  o.member = "c3";
  CHECK(validate_join_flags(o));
  o.member_flags.context = "";
  expect_invalid(validate_join_flags(o), {"--member-context", "--member-kubeconfig"});
  o.member_flags.kubeconfig = "/tmp/c3.kubeconfig";
  CHECK(validate_join_flags(o));
  o.cluster_labels = "region";
  expect_invalid(validate_join_flags(o), {"--cluster-labels", "key=value"});
  o.cluster_labels = "region=eu west";
  expect_invalid(validate_join_flags(o), {"--cluster-labels", "region"});
  o.cluster_labels = "region=eu,region=us";
  expect_invalid(validate_join_flags(o), {"twice"});
  o.cluster_labels = "topology.kubernetes.io/region=eu-west, provider=onprem";
  CHECK(validate_join_flags(o));
  o.share_cpu = "four";
  expect_invalid(validate_join_flags(o), {"--share-cpu"});
  o.share_cpu = "500m";
  o.share_memory = "-1Gi";
  expect_invalid(validate_join_flags(o), {"--share-memory", "negative"});
  o.share_memory = "8Gi";
  o.member_api_endpoint = "http://10.0.0.1:6443";
  expect_invalid(validate_join_flags(o), {"--member-api-endpoint", "https://"});
  o.member_api_endpoint = "https://172.31.0.103:6443";
  CHECK(validate_join_flags(o));
  o.gateway_address = "gw.example";
  expect_invalid(validate_join_flags(o), {"--gateway-address", "IPv4 address"});
  o.gateway_address = "172.31.0.3";
  CHECK(validate_join_flags(o));
  o.tunnel_backend = "ipsec";
  expect_invalid(validate_join_flags(o), {"--tunnel-backend", "wireguard", "vxlan", "ipsec"});
  o.tunnel_backend = "vxlan";
  CHECK(validate_join_flags(o));
}

TEST_CASE("gateway marks: the label and the address annotation on the chosen node only") {
  using nlohmann::json;
  const json plain = json::parse(R"({"metadata":{"name":"node1"}})");
  const json marked = json::parse(
      R"({"metadata":{"name":"node1","labels":{"kubectl-fed.io/gateway":"true"},
          "annotations":{"kubectl-fed.io/gateway-address":"172.31.0.1"}}})");
  // The chosen node gets both; an empty address leaves the annotation to the node.
  auto p = gateway_marks_patch(plain, {"node1", "172.31.0.1"});
  REQUIRE(p);
  CHECK((*p)["metadata"]["labels"]["kubectl-fed.io/gateway"] == "true");
  CHECK((*p)["metadata"]["annotations"]["kubectl-fed.io/gateway-address"] == "172.31.0.1");
  p = gateway_marks_patch(plain, {"node1", ""});
  REQUIRE(p);
  CHECK_FALSE((*p)["metadata"].contains("annotations"));
  // Already marked: nothing to write, with or without the flag; a new address is written.
  CHECK_FALSE(gateway_marks_patch(marked, {"node1", "172.31.0.1"}));
  CHECK_FALSE(gateway_marks_patch(marked, {"node1", ""}));
  p = gateway_marks_patch(marked, {"node1", "172.31.0.9"});
  REQUIRE(p);
  CHECK((*p)["metadata"]["annotations"]["kubectl-fed.io/gateway-address"] == "172.31.0.9");
  CHECK_FALSE((*p)["metadata"].contains("labels"));
  // Another node (or unjoin, which chooses none) loses both.
  p = gateway_marks_patch(marked, {"node2", "172.31.0.2"});
  REQUIRE(p);
  CHECK((*p)["metadata"]["labels"]["kubectl-fed.io/gateway"].is_null());
  CHECK((*p)["metadata"]["annotations"]["kubectl-fed.io/gateway-address"].is_null());
  CHECK_FALSE(gateway_marks_patch(plain, {}));
}

TEST_CASE("the default gateway: the labelled node, else a Ready one with an ExternalIP") {
  using nlohmann::json;
  auto node = [](const std::string& name, bool ready, const std::string& external) {
    json n{
        {"metadata", {{"name", name}}},
        {"status",
         {{"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})},
          {"addresses", json::array({{{"type", "InternalIP"}, {"address", "10.0.0.1"}}})}}}};
    if (!external.empty()) {
      n["status"]["addresses"].push_back({{"type", "ExternalIP"}, {"address", external}});
    }
    return n;
  };
  json list{{"items", json::array({node("a", true, ""), node("b", false, "203.0.113.1"),
                                   node("c", true, "203.0.113.2")})}};
  CHECK(*pick_gateway_node(list, "") == "c");
  CHECK(*pick_gateway_node(list, "a") == "a");
  list["items"][0]["metadata"]["labels"] = {{"kubectl-fed.io/gateway", "true"}};
  CHECK(*pick_gateway_node(list, "") == "a");
  list["items"][0]["metadata"].erase("labels");
  list["items"][2]["status"]["addresses"].erase(1);
  CHECK(*pick_gateway_node(list, "") == "a");
}

TEST_CASE("cluster labels parse into a map") {
  auto labels =
      parse_cluster_labels("topology.kubernetes.io/region=eu-west,provider=onprem,empty=");
  REQUIRE(labels);
  CHECK(labels->size() == 3);
  CHECK(labels->at("topology.kubernetes.io/region") == "eu-west");
  CHECK(labels->at("empty") == "");
  CHECK(parse_cluster_labels("")->empty());
  CHECK_FALSE(parse_cluster_labels("Bad..Prefix/x=y"));
  // kubectl-fed's own prefix is reserved: a member could pose as a virtual node's type.
  expect_invalid(parse_cluster_labels("kubectl-fed.io/type=virtual-node"),
                 {"--cluster-labels", "kubectl-fed.io/", "kubectl-fed's own"});
  expect_invalid(parse_cluster_labels("region=eu,x.kubectl-fed.io/zone=a"), {"x.kubectl-fed.io/"});
  CHECK(parse_cluster_labels("kubectl-fed.example.com/zone=a"));
}

TEST_CASE("--dry-run, --timeout and overlapping discovered ranges") {
  CHECK(*parse_dry_run("client") == DryRun::Client);
  CHECK(*parse_dry_run("none") == DryRun::None);
  expect_invalid(parse_dry_run("server"), {"--dry-run=client"});
  expect_invalid(parse_dry_run("yes"), {"--dry-run"});
  CHECK(parse_timeout_flag("90s", "--timeout")->count() == 90000);
  expect_invalid(parse_timeout_flag("0s", "--timeout"), {"--timeout", "positive"});
  expect_invalid(parse_timeout_flag("soon", "--timeout"), {"--timeout"});
  expect_invalid(check_disjoint({*net::Cidr::parse("10.0.0.0/16"), "the discovered PodCIDR"},
                                {*net::Cidr::parse("10.0.0.0/24"), "--service-cidr"}),
                 {"the discovered PodCIDR 10.0.0.0/16", "--service-cidr 10.0.0.0/24"});
}

TEST_CASE("peer A B: two different members; the link's name does not depend on the order") {
  PeerOptions o;
  expect_invalid(validate_peer_args(o), {"two members"});
  o.a = "c2";
  o.b = "C3";
  expect_invalid(validate_peer_args(o), {"B", "DNS label"});
  o.b = "c2";
  expect_invalid(validate_peer_args(o), {"different members"});
  o.b = "c3";
  CHECK(validate_peer_args(o));
  CHECK(direct_peering_name("c3", "c2") == "c2.c3");
  CHECK(direct_peering_name("c2", "c3") == "c2.c3");
}

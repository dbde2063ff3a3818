#include <doctest/doctest.h>

#include "shared/fedapi/group.hpp"
#include "shared/fedapi/ipam_state.hpp"
#include "shared/fedapi/json_fields.hpp"
#include "shared/fedapi/nat_mapping.hpp"
#include "shared/fedapi/peering.hpp"
#include "tests/unit/shared/fedapi/sample.hpp"

using fed::test::load_sample;
using fed::test::round_trip;
using nlohmann::json;
namespace api = fed::fedapi;

TEST_CASE("group, version and kinds match the CRDs") {
  CHECK(api::kApiVersion == std::string(api::kGroup) + "/" + std::string(api::kVersion));
  CHECK(api::gvr(api::kPeering).to_string() == "peerings.v1alpha1.fed.kubectl-fed.io");
  CHECK(api::gvk(api::kNatMapping).kind == "NatMapping");
  CHECK(fed::kube::path_of(api::ref(api::kIpamState, "ipam")) ==
        "/apis/fed.kubectl-fed.io/v1alpha1/ipamstates/ipam");
  CHECK(api::kClusterIdLabel.starts_with(api::kLabelPrefix));
  for (const auto& [kind, sample] :
       {std::pair{api::kFederatedCluster, "federatedcluster.yaml"},
        std::pair{api::kPeering, "peering.yaml"}, std::pair{api::kIpamState, "ipamstate.yaml"},
        std::pair{api::kIpamBlock, "ipamblock.yaml"},
        std::pair{api::kNatMapping, "natmapping.yaml"}}) {
    auto object = load_sample(sample);
    CHECK(object["apiVersion"] == api::kApiVersion);
    CHECK(object["kind"] == kind.kind);
  }
}

TEST_CASE("the Peering sample decodes to the exchange and the merged view, and back") {
  auto object = load_sample("peering.yaml");
  auto spec = round_trip<api::PeeringSpec>(object, "spec");
  CHECK(spec.local_cluster_id == "c1");
  CHECK(spec.peer_cluster_id == "c2");
  CHECK(spec.peer_pod_cidr == "10.242.0.0/16");
  CHECK(spec.peer_external_cidr == "10.0.0.0/16");
  CHECK(spec.backend == api::TunnelBackend::WireGuard);
  CHECK(spec.gateway_endpoint == "172.31.0.2:51820");
  CHECK(spec.public_key.size() == 44);

  auto status = round_trip<api::PeeringStatus>(object, "status");
  CHECK(status.remote_pod_cidr == "None");
  CHECK(status.remote_external_cidr == "10.1.0.0/16");
  CHECK(status.local_remapped_external_cidr == "10.1.0.0/16");
  CHECK(status.gateway_node == "node1");
  CHECK(status.tunnel.state == api::TunnelState::Connected);
  const auto* ready = api::find_condition(status.conditions, "TunnelReady");
  REQUIRE(ready != nullptr);
  CHECK(ready->status == "True");
  CHECK(ready->last_transition_time == "2026-11-22T10:00:06Z");
  CHECK(status.observed_generation == 1);
  CHECK(object["metadata"]["labels"][std::string(api::kClusterIdLabel)] == "c2");
}

TEST_CASE("the NatMapping sample decodes to newIP -> endpoint IP, and back") {
  auto object = load_sample("natmapping.yaml");
  auto spec = round_trip<api::NatMappingSpec>(object, "spec");
  CHECK(spec.cluster_id == "c2");
  CHECK(spec.external_cidr == "10.1.0.0/16");
  CHECK(spec.mappings == std::map<std::string, std::string>{{"10.1.0.1", "10.243.0.5"}});
  auto status = round_trip<api::NatMappingStatus>(object, "status");
  CHECK(status.applied == 1);
  CHECK(status.gateway_node == "node1");
  CHECK(api::find_condition(status.conditions, "Applied") != nullptr);
}

TEST_CASE("the IpamState sample decodes to the whole IPAM, and back") {
  auto object = load_sample("ipamstate.yaml");
  auto spec = round_trip<api::IpamStateSpec>(object, "spec");
  CHECK(spec.pod_cidr == "10.241.0.0/16");
  CHECK(spec.external_cidr == "10.0.0.0/16");
  CHECK(spec.reserved_subnets == std::vector<std::string>{"172.30.0.0/16", "172.31.0.0/24"});
  REQUIRE(spec.cluster_subnets.count("c3") == 1);
  CHECK(spec.cluster_subnets["c3"].remote_external_cidr == "10.2.0.0/16");
  CHECK(spec.cluster_subnets["c3"].local_remapped_pod_cidr == "None");
  CHECK(spec.endpoint_mappings.empty());  // in IpamBlocks
  CHECK(spec.endpoint_block_length == 26);
}

TEST_CASE("the IpamBlock sample decodes to its block's endpoints, and back") {
  auto object = load_sample("ipamblock.yaml");
  auto spec = round_trip<api::IpamBlockSpec>(object, "spec");
  CHECK(spec.cidr == "10.0.0.0/26");
  REQUIRE(spec.endpoint_mappings.count("10.243.0.5") == 1);
  CHECK(spec.endpoint_mappings["10.243.0.5"].ip == "10.0.0.1");
  CHECK(spec.endpoint_mappings["10.243.0.5"].clusters == std::vector<std::string>{"c2"});
}

TEST_CASE("decoding names the field that is missing or mistyped") {
  auto message = [](auto result) {
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code() == fed::ErrorCode::Invalid);
    return result.error().message();
  };
  auto peering = load_sample("peering.yaml")["spec"];
  peering.erase("peerPodCIDR");
  CHECK(message(api::decode<api::PeeringSpec>(peering, "Peering c2 spec")) ==
        "Peering c2 spec: peerPodCIDR: is required");
  peering["peerPodCIDR"] = 10;
  CHECK(message(api::decode<api::PeeringSpec>(peering, "spec")) ==
        "spec: peerPodCIDR: must be a string, not number");
  peering["peerPodCIDR"] = "10.242.0.0/16";
  peering["backend"] = "ipsec";
  CHECK(message(api::decode<api::PeeringSpec>(peering, "spec")) ==
        "spec: backend: must be one of wireguard, vxlan, not \"ipsec\"");

  auto status = load_sample("peering.yaml")["status"];
  status["conditions"][1]["status"] = "Maybe";
  CHECK(message(api::decode<api::PeeringStatus>(status, "status")) ==
        "status: conditions[1].status: must be True, False or Unknown, not \"Maybe\"");
  status = load_sample("peering.yaml")["status"];
  status["tunnel"]["state"] = "Up";
  CHECK(message(api::decode<api::PeeringStatus>(status, "status")).find("tunnel.state: must be") !=
        std::string::npos);

  auto block = load_sample("ipamblock.yaml")["spec"];
  block["endpointMappings"]["10.243.0.5"].erase("ip");
  CHECK(message(api::decode<api::IpamBlockSpec>(block, "spec")) ==
        "spec: endpointMappings.10.243.0.5.ip: is required");
  block.erase("cidr");
  CHECK(message(api::decode<api::IpamBlockSpec>(block, "spec")) == "spec: cidr: is required");
  auto ipam = load_sample("ipamstate.yaml")["spec"];
  ipam["endpointMappings"] = {{"10.243.0.5", {{"clusters", {"c2"}}}}};  // an older release's
  CHECK(message(api::decode<api::IpamStateSpec>(ipam, "spec")) ==
        "spec: endpointMappings.10.243.0.5.ip: is required");
  ipam = load_sample("ipamstate.yaml")["spec"];
  ipam["clusterSubnets"]["c2"] = "c2";
  CHECK(message(api::decode<api::IpamStateSpec>(ipam, "spec")) ==
        "spec: clusterSubnets.c2: must be an object");

  auto nat = load_sample("natmapping.yaml")["spec"];
  nat["mappings"]["10.1.0.1"] = json::array();
  CHECK(message(api::decode<api::NatMappingSpec>(nat, "spec")) ==
        "spec: mappings.10.1.0.1: must be a string, not array");
  CHECK(message(api::decode<api::NatMappingSpec>(json("text"), "spec")) ==
        "spec: must be an object, not string");
}

TEST_CASE("unset fields stay absent and defaults apply on read") {
  api::PeeringSpec spec{"c1", "c9", "10.9.0.0/16", "10.8.0.0/16", api::TunnelBackend::Vxlan, "", "",
                        "",   ""};
  json j = spec;
  CHECK_FALSE(j.contains("publicKey"));
  CHECK_FALSE(j.contains("gatewayEndpoint"));
  CHECK(j["backend"] == "vxlan");
  j.erase("backend");
  CHECK(api::decode<api::PeeringSpec>(j, "spec")->backend == api::TunnelBackend::WireGuard);
  json status = api::PeeringStatus{};
  CHECK(status == json{{"tunnel", {{"state", "Pending"}}}});
  CHECK(*api::decode<api::PeeringStatus>(json::object(), "status") == api::PeeringStatus{});
}

TEST_CASE("current_tunnel_status reads the Peering's status.tunnel") {
  json p{{"status", {{"tunnel", {{"state", "Connected"}}}}}};
  CHECK(api::current_tunnel_status(p) == api::TunnelStatus{api::TunnelState::Connected, ""});
  CHECK(api::current_tunnel_status(json::object()) == api::TunnelStatus{});
  p["status"]["tunnel"] = {{"state", "Connecting"}, {"message", "no handshake"}};
  CHECK(api::current_tunnel_status(p).message == "no handshake");
  p["status"]["tunnel"]["state"] = "Bogus";
  CHECK(api::current_tunnel_status(p).state == api::TunnelState::Error);
}

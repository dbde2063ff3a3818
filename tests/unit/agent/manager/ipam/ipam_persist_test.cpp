// The IPAM state persisted as the IpamState spec and restored: no double allocation, no lost
// mapping; and the samples users see are what the IPAM produces.
#include <doctest/doctest.h>

#include <string>

#include "agent/manager/ipam/address_blocks.hpp"
#include "agent/manager/ipam/api_convert.hpp"
#include "agent/manager/ipam/ipam.hpp"
#include "tests/unit/agent/manager/ipam/ipam_test_util.hpp"
#include "tests/unit/shared/fedapi/sample.hpp"

using fed::ErrorCode;
using fed::fabric::ipam::Ipam;
using fed::fabric::ipam::IpamState;
using fed::net::Ipv4;
using fed::test::cidr;
using fed::test::error_of;
using fed::test::ip;
using nlohmann::json;
namespace ipam = fed::fabric::ipam;

namespace {

// The host c1 of the testbed after joining c2 and c3, as manifests/samples/ipamstate.yaml has
// it: each side of a peering processes the other's announcement.
void make_testbed_hub(Ipam& c1) {
  REQUIRE(c1.install({cidr("10.241.0.0/16"),
                      cidr("10.101.0.0/16"),
                      {cidr("172.30.0.0/16"), cidr("172.31.0.0/24")}}));
  for (const char* id : {"c2", "c3"}) {
    const auto member_pod = std::string("10.24") + id[1] + ".0.0/16";
    Ipam member;  // the member's own IPAM, with the testbed's ranges
    fed::test::install(member, member_pod.c_str(),
                       (std::string("10.10") + id[1] + ".0.0/16").c_str());
    const auto theirs = *member.local_networks();
    const auto ours = *c1.local_networks();
    auto at_hub = c1.get_or_remap_networks(id, theirs.pod_cidr, theirs.external_cidr);
    auto at_member = member.get_or_remap_networks("c1", ours.pod_cidr, ours.external_cidr);
    REQUIRE(at_hub.has_value());
    REQUIRE(at_member.has_value());
    REQUIRE(c1.set_local_remaps(id, {at_member->pod_remap(), at_member->external_remap()}));
  }
}

// Serialises through JSON text, as the IpamState object stores it.
IpamState through_json(const IpamState& state) {
  const std::string text = ipam::state_to_json(state).dump();
  auto back = ipam::state_from_json(json::parse(text));
  REQUIRE_MESSAGE(back.has_value(), (back ? "" : back.error().message()));
  return *back;
}

}  // namespace

TEST_CASE("the IpamState, IpamBlock and NatMapping samples are what the IPAM produces") {
  Ipam c1;
  make_testbed_hub(c1);
  auto mapped = c1.map_endpoint_ip("c2", ip("10.243.0.5"));  // a pod of c3, reflected to c2
  REQUIRE(mapped.has_value());
  CHECK(mapped->ip == ip("10.1.0.1"));

  json networks = ipam::state_to_json(c1.snapshot(false));
  networks["endpointBlockLength"] = ipam::kDefaultBlockLength;
  CHECK(networks == fed::test::load_sample("ipamstate.yaml")["spec"]);
  const auto block = fed::net::Cidr::containing(mapped->external_ip, ipam::kDefaultBlockLength);
  auto block_sample = fed::test::load_sample("ipamblock.yaml");
  CHECK(block_sample["metadata"]["name"] == ipam::block_name(block));
  CHECK(json(ipam::to_block_spec(block, c1.endpoints_in(block))) == block_sample["spec"]);
  auto nat = c1.nat_mapping("c2", block);
  REQUIRE(nat.has_value());
  auto nat_sample = fed::test::load_sample("natmapping.yaml");
  CHECK(nat_sample["metadata"]["name"] == ipam::nat_mapping_name("c2", block));
  CHECK(json(ipam::to_spec(*nat)) == nat_sample["spec"]);

  fed::fedapi::PeeringStatus status;
  ipam::set_network_status(*c1.local_networks(), *c1.cluster("c2"), status);
  auto peering = fed::test::load_sample("peering.yaml")["status"];
  CHECK(status.local_pod_cidr == peering["localPodCIDR"]);
  CHECK(status.local_external_cidr == peering["localExternalCIDR"]);
  CHECK(status.remote_pod_cidr == peering["remotePodCIDR"]);
  CHECK(status.remote_external_cidr == peering["remoteExternalCIDR"]);
  CHECK(status.local_remapped_pod_cidr == peering["localRemappedPodCIDR"]);
  CHECK(status.local_remapped_external_cidr == peering["localRemappedExternalCIDR"]);
}

TEST_CASE("the state round-trips through JSON and a restored IPAM carries on identically") {
  Ipam before;
  make_testbed_hub(before);
  for (std::uint32_t i = 0; i < 300; ++i) {
    REQUIRE(before.map_endpoint_ip(i % 3 ? "c2" : "c3", Ipv4{ip("10.243.1.0").value + i}));
  }
  REQUIRE(before.map_endpoint_ip("c3", ip("10.243.1.1")));    // shared by both peers
  REQUIRE(before.unmap_endpoint_ip("c2", ip("10.243.1.4")));  // a hole in the allocations
  const auto state = before.snapshot();
  CHECK(through_json(state) == state);

  Ipam after;
  REQUIRE(after.restore(through_json(state)));
  CHECK(after.snapshot() == state);
  CHECK(*after.nat_mapping("c2") == *before.nat_mapping("c2"));
  CHECK(*after.nat_mapping("c3") == *before.nat_mapping("c3"));
  // No double allocation: both hand the hole out next, then an address nobody holds.
  for (const char* endpoint : {"10.243.9.1", "10.243.9.2"}) {
    auto a = before.map_endpoint_ip("c2", endpoint);
    auto b = after.map_endpoint_ip("c2", endpoint);
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(a->ip == b->ip);
  }
  CHECK(after.snapshot() == before.snapshot());
  // No lost mapping: an existing endpoint keeps its address.
  CHECK(after.map_endpoint_ip("c2", ip("10.243.1.1"))->ip ==
        before.map_endpoint_ip("c2", ip("10.243.1.1"))->ip);
  // Networks too: the same peers are answered from the state, new ones avoid its networks.
  CHECK(*after.get_or_remap_networks("c3", cidr("10.243.0.0/16"), cidr("10.0.0.0/16")) ==
        *before.cluster("c3")->subnets);
  CHECK(after.get_or_remap_networks("c4", cidr("10.244.0.0/16"), cidr("10.0.0.0/16"))
            ->remote_external_cidr == cidr("10.3.0.0/16"));
}

TEST_CASE("an empty IPAM round-trips to an empty spec") {
  Ipam empty;
  CHECK(ipam::state_to_json(empty.snapshot()) == json::object());
  REQUIRE(empty.restore(through_json(empty.snapshot())));
}

TEST_CASE("a state that would double-allocate or lose track is refused and changes nothing") {
  Ipam c1;
  make_testbed_hub(c1);
  REQUIRE(c1.map_endpoint_ip("c2", ip("10.243.0.5")));
  const auto good = c1.snapshot();
  const json spec = ipam::state_to_json(good);
  auto refused = [&](json bad) {
    auto state = ipam::state_from_json(bad);
    std::string msg;
    if (!state) {
      msg = state.error().message();
    } else {
      Ipam target;
      REQUIRE(target.restore(good));
      msg = error_of(target.restore(*state), ErrorCode::Invalid);
      CHECK(target.snapshot() == good);  // unchanged
    }
    return msg;
  };
  json bad = spec;
  bad["endpointMappings"]["10.243.0.6"] = {{"ip", "10.0.0.1"}, {"clusters", {"c3"}}};
  CHECK(refused(bad) ==
        "IPAM state: endpointMappings.10.243.0.6.ip: 10.0.0.1 is already held by another "
        "endpoint (a double allocation)");
  bad = spec;
  bad["endpointMappings"]["10.243.0.5"]["ip"] = "10.1.0.1";
  CHECK(refused(bad) ==
        "IPAM state: endpointMappings.10.243.0.5.ip: 10.1.0.1 is not a usable address of the "
        "ExternalCIDR 10.0.0.0/16");
  bad = spec;
  bad["endpointMappings"]["10.243.0.5"]["clusters"] = {"c9"};
  CHECK(refused(bad) ==
        "IPAM state: endpointMappings.10.243.0.5.clusters: c9 is not in "
        "clusterSubnets");
  bad = spec;
  bad["clusterSubnets"]["c3"]["remoteExternalCIDR"] = "10.1.0.0/16";
  CHECK(refused(bad).find("clusterSubnets.c3.remoteExternalCIDR: 10.1.0.0/16 overlaps the "
                          "network 10.1.0.0/16 used for peer c2's ExternalCIDR") !=
        std::string::npos);
  bad = spec;
  bad["reservedSubnets"].push_back("10.241.128.0/17");
  CHECK(refused(bad).find("reservedSubnets[2]: 10.241.128.0/17 overlaps the local PodCIDR") !=
        std::string::npos);
  bad = spec;
  bad["externalCIDR"] = "10.0.0.1/16";
  CHECK(refused(bad) ==
        "IpamState spec: externalCIDR: \"10.0.0.1/16\" has host bits set; did you mean "
        "10.0.0.0/16?");
  bad = spec;
  bad["clusterSubnets"]["c2"].erase("localRemappedPodCIDR");
  CHECK(refused(bad).find("localRemappedPodCIDR and localRemappedExternalCIDR are set together") !=
        std::string::npos);
  bad = spec;
  bad.erase("podCIDR");
  CHECK(refused(bad).find("podCIDR") != std::string::npos);
}

// The ExternalCIDR's blocks (docs/DATAPATH.md "Endpoint mappings at scale"): object names, the
// IPAM's per-block views and the changed addresses a persister writes, and reading a block.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "agent/manager/ipam/address_blocks.hpp"
#include "agent/manager/ipam/api_convert.hpp"
#include "agent/manager/ipam/ipam.hpp"
#include "tests/unit/agent/manager/ipam/ipam_test_util.hpp"

using fed::ErrorCode;
using fed::fabric::ipam::Ipam;
using fed::net::Ipv4;
using fed::test::cidr;
using fed::test::error_of;
using fed::test::ip;
namespace ipam = fed::fabric::ipam;

namespace {

// A hub with a /22 ExternalCIDR (10.0.0.0/22) and peers a (sees our networks as they are) and
// d (sees our ExternalCIDR as 10.50.0.0/22).
void make_block_hub(Ipam& hub) {
  fed::test::install(hub, "10.200.0.0/22", "10.96.0.0/12");
  REQUIRE(hub.local_networks()->external_cidr == cidr("10.0.0.0/22"));
  fed::test::peer(hub, "a", "10.2.0.0/22", "10.3.0.0/22");
  fed::test::peer(hub, "d", "10.5.0.0/22", "10.6.0.0/22", {std::nullopt, cidr("10.50.0.0/22")});
}

std::set<Ipv4> changed(Ipam& hub) {
  auto v = hub.take_changed_addresses();
  return {v.begin(), v.end()};
}

}  // namespace

TEST_CASE("block names are DNS labels that say the block, and nothing else parses") {
  CHECK(ipam::block_name(cidr("10.0.2.0/24")) == "10-0-2-0-24");
  CHECK(*ipam::block_from_name("10-0-2-0-24") == cidr("10.0.2.0/24"));
  CHECK(*ipam::block_from_name("192-168-255-240-28") == cidr("192.168.255.240/28"));
  for (const char* bad : {"10-0-2-0", "10-0-2-1-24", "010-0-2-0-24", "10-0-2-0-33", "c2", ""}) {
    CAPTURE(bad);
    CHECK(error_of(ipam::block_from_name(bad), ErrorCode::Invalid).find("10-0-2-0-24") !=
          std::string::npos);
  }
  CHECK(ipam::nat_mapping_name("c2", cidr("10.0.2.0/24")) == "c2.10-0-2-0-24");
  auto sharded = ipam::parse_nat_mapping_name("my-cluster.10-0-2-0-24");
  REQUIRE(sharded.has_value());
  CHECK(sharded->peer == "my-cluster");
  CHECK(sharded->block == cidr("10.0.2.0/24"));
  auto legacy = ipam::parse_nat_mapping_name("c2");
  REQUIRE(legacy.has_value());
  CHECK(legacy->peer == "c2");
  CHECK_FALSE(legacy->block.has_value());
  CHECK(error_of(ipam::parse_nat_mapping_name("c2.x"), ErrorCode::Invalid).find("c2.x") !=
        std::string::npos);
}

TEST_CASE("a block is never larger than the ExternalCIDR it divides") {
  CHECK(ipam::block_length(24, cidr("10.0.0.0/16")) == 24);
  CHECK(ipam::block_length(24, cidr("10.0.0.0/26")) == 26);
  CHECK(ipam::block_length(28, cidr("10.0.0.0/22")) == 28);
}

TEST_CASE("the IPAM reports the addresses each change touched, and answers per block") {
  Ipam hub;
  make_block_hub(hub);
  CHECK(changed(hub).empty());
  // 300 endpoints: the lowest addresses first, so blocks /24 0 and 1 of 10.0.0.0/22.
  for (int i = 0; i < 300; ++i) {
    const Ipv4 endpoint{ip("10.9.0.0").value + static_cast<std::uint32_t>(i)};
    REQUIRE(hub.map_endpoint_ip("a", endpoint));
  }
  auto touched = changed(hub);
  CHECK(touched.size() == 300);
  CHECK(*touched.begin() == ip("10.0.0.1"));
  CHECK(changed(hub).empty());  // taken once

  const auto first = cidr("10.0.0.0/24");
  const auto second = cidr("10.0.1.0/24");
  // .1 to .255: inside the /22 only 10.0.0.0 and 10.0.3.255 are not usable.
  CHECK(hub.endpoints_in(first).size() == 255);
  CHECK(hub.endpoints_in(second).size() == 45);
  CHECK(hub.endpoints_in(cidr("10.0.2.0/24")).empty());
  CHECK(hub.nat_mapping("a", second)->mappings.size() == 45);
  CHECK(hub.nat_mapping("d", second)->mappings.empty());

  // Reflected to d too: one address, the same block, d's view of it.
  auto to_d = hub.map_endpoint_ip("d", ip("10.9.0.0"));
  REQUIRE(to_d.has_value());
  CHECK(to_d->external_ip == ip("10.0.0.1"));
  CHECK(to_d->ip == ip("10.50.0.1"));
  CHECK(changed(hub) == std::set{ip("10.0.0.1")});
  auto d_first = hub.nat_mapping("d", first);
  REQUIRE(d_first.has_value());
  CHECK(d_first->mappings == std::map<Ipv4, Ipv4>{{ip("10.50.0.1"), ip("10.9.0.0")}});
  CHECK(hub.endpoints_in(first).at(ip("10.9.0.0")).clusters == std::vector<std::string>{"a", "d"});

  // A mapping that changes nothing touches nothing; an unmap touches its address.
  REQUIRE(hub.map_endpoint_ip("d", ip("10.9.0.0")));
  CHECK(changed(hub).empty());
  auto gone = hub.unmap_endpoint_ip("a", ip("10.9.1.43"));
  REQUIRE(gone.has_value());
  CHECK(gone->released);
  REQUIRE(gone->external_ip.has_value());
  CHECK(second.contains(*gone->external_ip));
  CHECK(changed(hub) == std::set{*gone->external_ip});
  CHECK(hub.endpoints_in(second).size() == 44);

  // Removing a peer touches every address it held.
  REQUIRE(hub.remove_cluster("d"));
  CHECK(changed(hub) == std::set{ip("10.0.0.1")});
}

TEST_CASE("an IpamBlock round-trips, and one holding an address outside it is refused") {
  Ipam hub;
  make_block_hub(hub);
  REQUIRE(hub.map_endpoint_ip("a", ip("10.9.0.7")));
  const auto block = cidr("10.0.0.0/24");
  auto spec = ipam::to_block_spec(block, hub.endpoints_in(block));
  CHECK(spec.cidr == "10.0.0.0/24");
  auto back = ipam::from_block_spec(spec);
  REQUIRE(back.has_value());
  CHECK(*back == hub.endpoints_in(block));

  spec.cidr = "10.0.1.0/24";
  CHECK(error_of(ipam::from_block_spec(spec), ErrorCode::Invalid) ==
        "endpointMappings.10.9.0.7.ip: 10.0.0.1 is not in the block 10.0.1.0/24");
}

// Install-time reservations and per-peer networks: spec 002 §1.3 and scenario S4.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "agent/manager/ipam/ipam.hpp"
#include "agent/manager/ipam/validate.hpp"
#include "tests/unit/agent/manager/ipam/ipam_test_util.hpp"

using fed::ErrorCode;
using fed::fabric::ipam::Ipam;
using fed::fabric::ipam::LocalRemaps;
using fed::test::cidr;
using fed::test::error_of;

namespace {
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("install reserves PodCIDR and ServiceCIDR and picks an ExternalCIDR of the same length") {
  Ipam ipam;
  auto local = ipam.install({cidr("10.241.0.0/16"), cidr("10.101.0.0/16"), {}});
  REQUIRE(local.has_value());
  CHECK(local->external_cidr == cidr("10.0.0.0/16"));
  CHECK(ipam.local_networks() == *local);

  SUBCASE("again with the same ranges: the same answer (a restart)") {
    CHECK(*ipam.install({cidr("10.241.0.0/16"), cidr("10.101.0.0/16"), {}}) == *local);
  }
  SUBCASE("a different PodCIDR or ServiceCIDR is refused and changes nothing") {
    auto msg = error_of(ipam.install({cidr("10.244.0.0/16"), cidr("10.101.0.0/16"), {}}),
                        ErrorCode::Invalid);
    CHECK(contains(msg, "podCIDR: the PodCIDR is already 10.241.0.0/16 and cannot change"));
    msg = error_of(ipam.install({cidr("10.241.0.0/16"), cidr("10.96.0.0/12"), {}}),
                   ErrorCode::Invalid);
    CHECK(contains(msg, "serviceCIDR: the ServiceCIDR is already 10.101.0.0/16"));
    CHECK(ipam.local_networks() == *local);
  }
  SUBCASE("reserved subnets can be added later unless something uses them") {
    auto msg = error_of(
        ipam.install({cidr("10.241.0.0/16"), cidr("10.101.0.0/16"), {cidr("10.0.128.0/17")}}),
        ErrorCode::Invalid);
    CHECK(msg ==
          "reservedSubnets[0]: 10.0.128.0/17 overlaps the local ExternalCIDR 10.0.0.0/16; "
          "choose a range outside it");
    REQUIRE(ipam.install({cidr("10.241.0.0/16"), cidr("10.101.0.0/16"), {cidr("10.1.0.0/16")}}));
    auto subnets = ipam.get_or_remap_networks("c2", cidr("10.241.0.0/16"), cidr("10.1.0.0/16"));
    REQUIRE(subnets.has_value());
    CHECK(subnets->remote_pod_cidr == cidr("10.2.0.0/16"));
    CHECK(subnets->remote_external_cidr == cidr("10.3.0.0/16"));
  }
}

TEST_CASE("the ExternalCIDR honours reserved subnets and tries the pools in order") {
  Ipam a;
  auto local = a.install(
      {cidr("10.244.0.0/24"), cidr("10.96.0.0/12"), {cidr("10.0.0.0/16"), cidr("10.1.0.0/24")}});
  REQUIRE(local.has_value());
  CHECK(local->external_cidr == cidr("10.1.1.0/24"));

  Ipam b;  // 10/8 reserved: 192.168/16 is next
  local = b.install({cidr("192.168.0.0/24"), cidr("192.168.1.0/24"), {cidr("10.0.0.0/8")}});
  REQUIRE(local.has_value());
  CHECK(local->external_cidr == cidr("192.168.2.0/24"));

  Ipam c;  // then 172.16/12
  local = c.install(
      {cidr("172.16.0.0/24"), cidr("172.16.1.0/24"), {cidr("10.0.0.0/8"), cidr("192.168.0.0/16")}});
  REQUIRE(local.has_value());
  CHECK(local->external_cidr == cidr("172.16.2.0/24"));

  Ipam d;  // no room at all: Invalid, the install input is the cause
  auto msg = error_of(d.install({cidr("172.16.0.0/12"),
                                 cidr("172.32.0.0/16"),
                                 {cidr("10.0.0.0/8"), cidr("192.168.0.0/16")}}),
                      ErrorCode::Invalid);
  CHECK(msg ==
        "no free /12 network for the local ExternalCIDR is left in the pools (10.0.0.0/8, "
        "192.168.0.0/16, 172.16.0.0/12); reserve fewer subnets or choose a longer PodCIDR prefix");
}

TEST_CASE("install validation names the field and the fix") {
  Ipam ipam;
  auto bad = fed::fabric::ipam::parse_cidr("podCIDR", "10.0.0.1/24");
  CHECK(error_of(bad, ErrorCode::Invalid) ==
        "podCIDR: \"10.0.0.1/24\" has host bits set; did you mean 10.0.0.0/24?");
  fed::net::Cidr host_bits{fed::test::ip("10.0.0.1"), 24};
  CHECK(error_of(ipam.install({host_bits, cidr("10.96.0.0/12"), {}}), ErrorCode::Invalid) ==
        "podCIDR: \"10.0.0.1/24\" has host bits set; did you mean 10.0.0.0/24?");
  CHECK(error_of(ipam.install({cidr("10.96.0.0/16"), cidr("10.96.0.0/12"), {}}),
                 ErrorCode::Invalid) ==
        "serviceCIDR: 10.96.0.0/12 overlaps the local PodCIDR 10.96.0.0/16; choose a range "
        "outside it");
  CHECK(error_of(ipam.install({cidr("10.244.0.0/16"),
                               cidr("10.96.0.0/12"),
                               {cidr("192.168.0.0/16"), cidr("192.168.4.0/24")}}),
                 ErrorCode::Invalid) ==
        "reservedSubnets[1]: 192.168.4.0/24 overlaps reservedSubnets[0] 192.168.0.0/16; list "
        "each range once, or merge them into one subnet");
  CHECK(contains(
      error_of(ipam.install({cidr("10.244.0.0/16"), cidr("10.96.0.0/12"), {cidr("10.244.1.0/24")}}),
               ErrorCode::Invalid),
      "reservedSubnets[0]: 10.244.1.0/24 overlaps the local PodCIDR 10.244.0.0/16"));
  CHECK(contains(
      error_of(ipam.install({cidr("0.0.0.0/4"), cidr("172.20.0.0/16"), {}}), ErrorCode::Invalid),
      "no pool can hold a /4 network for the local ExternalCIDR"));
  CHECK_FALSE(ipam.local_networks().has_value());  // every failure left it uninstalled
}

TEST_CASE("a peer's networks are kept when free, remapped to the same length when not") {
  Ipam ipam;
  fed::test::install(ipam, "10.241.0.0/16", "10.101.0.0/16");  // ExternalCIDR 10.0.0.0/16
  auto c2 = ipam.get_or_remap_networks("c2", cidr("10.242.0.0/16"), cidr("10.0.0.0/16"));
  REQUIRE(c2.has_value());
  CHECK(c2->remote_pod_cidr == cidr("10.242.0.0/16"));
  CHECK_FALSE(c2->pod_remap().has_value());
  CHECK(c2->remote_external_cidr == cidr("10.1.0.0/16"));
  CHECK(c2->external_remap() == cidr("10.1.0.0/16"));

  SUBCASE("idempotent per cluster id") {
    CHECK(*ipam.get_or_remap_networks("c2", cidr("10.242.0.0/16"), cidr("10.0.0.0/16")) == *c2);
    auto msg =
        error_of(ipam.get_or_remap_networks("c2", cidr("10.250.0.0/16"), cidr("10.0.0.0/16")),
                 ErrorCode::Invalid);
    CHECK(contains(msg, "peer c2 is peered with podCIDR 10.242.0.0/16"));
    CHECK(contains(msg, "remove the peering before announcing new ranges"));
  }
  SUBCASE("another peer's ranges count as taken") {
    auto c3 = ipam.get_or_remap_networks("c3", cidr("10.242.128.0/17"), cidr("10.1.0.0/16"));
    REQUIRE(c3.has_value());
    CHECK(c3->remote_pod_cidr == cidr("10.2.0.0/17"));
    CHECK(c3->remote_external_cidr == cidr("10.3.0.0/16"));
  }
  SUBCASE("remove_cluster frees its networks for the next peer") {
    CHECK(*ipam.remove_cluster("c2"));
    CHECK_FALSE(*ipam.remove_cluster("c2"));
    error_of(ipam.cluster("c2"), ErrorCode::NotFound);
    auto c4 = ipam.get_or_remap_networks("c4", cidr("10.242.0.0/16"), cidr("10.1.0.0/16"));
    REQUIRE(c4.has_value());
    CHECK_FALSE(c4->pod_remap().has_value());
    CHECK_FALSE(c4->external_remap().has_value());
  }
  SUBCASE("bad announcements are Invalid and name the peer") {
    CHECK(contains(
        error_of(ipam.get_or_remap_networks("c5", cidr("10.5.0.0/16"), cidr("10.5.0.0/24")),
                 ErrorCode::Invalid),
        "peer c5 announced podCIDR 10.5.0.0/16 and externalCIDR 10.5.0.0/24, which "
        "overlap"));
    CHECK(contains(
        error_of(ipam.get_or_remap_networks("C_5", cidr("10.5.0.0/16"), cidr("10.6.0.0/16")),
                 ErrorCode::Invalid),
        "cluster id \"C_5\" is not a DNS label"));
    fed::net::Cidr host_bits{fed::test::ip("10.5.0.1"), 16};
    CHECK(contains(error_of(ipam.get_or_remap_networks("c5", host_bits, cidr("10.6.0.0/16")),
                            ErrorCode::Invalid),
                   "peer c5 podCIDR: \"10.5.0.1/16\" has host bits set; did you mean "
                   "10.5.0.0/16?"));
    error_of(ipam.cluster("c5"), ErrorCode::NotFound);
  }
}

TEST_CASE("S4: clusters sharing one PodCIDR get distinct same-length remaps on the hub") {
  const char* kPod = "10.244.0.0/24";
  Ipam hub;
  fed::test::install(hub, kPod, "10.96.0.0/12");
  const auto hub_local = *hub.local_networks();
  CHECK(hub_local.external_cidr == cidr("10.0.0.0/24"));
  std::vector<Ipam> spokes(4);
  std::set<fed::net::Cidr> hub_networks{hub_local.pod_cidr, hub_local.external_cidr};
  for (std::size_t i = 0; i < spokes.size(); ++i) {
    const std::string id = "spoke" + std::to_string(i + 1);
    fed::test::install(spokes[i], kPod, "10.96.0.0/12");
    const auto local = *spokes[i].local_networks();
    CHECK(local.external_cidr == cidr("10.0.0.0/24"));  // every spoke chose the same one
    // Each side processes the other's announcement, then learns how the other sees it.
    auto at_hub = hub.get_or_remap_networks(id, local.pod_cidr, local.external_cidr);
    auto at_spoke =
        spokes[i].get_or_remap_networks("hub", hub_local.pod_cidr, hub_local.external_cidr);
    REQUIRE(at_hub.has_value());
    REQUIRE(at_spoke.has_value());
    REQUIRE(spokes[i].set_local_remaps("hub", {at_hub->pod_remap(), at_hub->external_remap()}));
    REQUIRE(hub.set_local_remaps(id, {at_spoke->pod_remap(), at_spoke->external_remap()}));
    // Distinct, same length, overlapping nothing else the hub uses.
    for (auto net : {at_hub->remote_pod_cidr, at_hub->remote_external_cidr}) {
      CHECK(net.length == 24);
      for (const auto& other : hub_networks) CHECK_FALSE(net.overlaps(other));
      hub_networks.insert(net);
    }
    // The spoke's localNATPodCIDR is what the hub assigned.
    CHECK(spokes[i].cluster("hub")->local->pod_cidr == at_hub->remote_pod_cidr);
    CHECK(spokes[i].cluster("hub")->local->external_cidr == at_hub->remote_external_cidr);
  }
  CHECK(hub_networks.size() == 10);
  CHECK(hub.cluster("spoke1")->subnets->remote_pod_cidr == cidr("10.0.1.0/24"));
  CHECK(hub.cluster("spoke4")->subnets->remote_external_cidr == cidr("10.0.8.0/24"));

  // A restart (state reload) yields identical assignments.
  Ipam restarted;
  REQUIRE(restarted.restore(hub.snapshot()));
  CHECK(restarted.snapshot() == hub.snapshot());
  CHECK(*restarted.get_or_remap_networks("spoke2", cidr(kPod), cidr("10.0.0.0/24")) ==
        *hub.cluster("spoke2")->subnets);

  // Removing a peering frees its networks; re-peering reuses them.
  const auto before = *hub.cluster("spoke2")->subnets;
  REQUIRE(*hub.remove_cluster("spoke2"));
  auto again = hub.get_or_remap_networks("spoke2", cidr(kPod), cidr("10.0.0.0/24"));
  REQUIRE(again.has_value());
  CHECK(*again == before);
}

TEST_CASE("when the second network cannot be placed the first is given back") {
  // 172.16/12 is all ours, 192.168/16 cannot hold a /13: remaps come from the 31 /13 networks
  // of 10/8 left beside the ExternalCIDR.
  Ipam ipam;
  fed::test::install(ipam, "172.16.0.0/13", "172.24.0.0/13");
  CHECK(ipam.local_networks()->external_cidr == cidr("10.0.0.0/13"));
  for (int i = 0; i < 15; ++i) {  // both networks of each collide: two remaps each
    auto s = ipam.get_or_remap_networks("p" + std::to_string(i), cidr("172.16.0.0/13"),
                                        cidr("10.0.0.0/13"));
    REQUIRE(s.has_value());
  }
  const auto before = ipam.snapshot();
  auto msg =
      error_of(ipam.get_or_remap_networks("last", cidr("172.16.0.0/13"), cidr("10.0.0.0/13")),
               ErrorCode::Unavailable);
  CHECK(msg ==
        "no free /13 network for peer last's ExternalCIDR is left in the pools (10.0.0.0/8, "
        "192.168.0.0/16, 172.16.0.0/12); remove a peering or reserve fewer subnets");
  CHECK(ipam.snapshot() == before);  // the PodCIDR remap taken first was rolled back
  auto fits = ipam.get_or_remap_networks("last", cidr("172.16.0.0/13"), cidr("100.64.0.0/13"));
  REQUIRE(fits.has_value());
  CHECK(fits->remote_pod_cidr == cidr("10.248.0.0/13"));  // the /13 the rollback gave back
}

TEST_CASE("the peer's view of our networks keeps their lengths") {
  Ipam ipam;
  fed::test::install(ipam, "10.241.0.0/16", "10.101.0.0/16");
  CHECK(*ipam.set_local_remaps("c2", {std::nullopt, cidr("10.1.0.0/16")}));
  CHECK_FALSE(*ipam.set_local_remaps("c2", {std::nullopt, cidr("10.1.0.0/16")}));  // unchanged
  CHECK(ipam.cluster("c2")->local == LocalRemaps{std::nullopt, cidr("10.1.0.0/16")});
  CHECK_FALSE(ipam.cluster("c2")->subnets.has_value());
  CHECK(error_of(ipam.set_local_remaps("c2", {cidr("10.5.0.0/24"), std::nullopt}),
                 ErrorCode::Invalid) ==
        "peer c2 localRemappedPodCIDR: 10.5.0.0/24 must be a /16 like our 10.241.0.0/16 (a "
        "remap keeps the host part of every address)");
}

TEST_CASE("operations before install are reported as a bug of the caller") {
  Ipam ipam;
  error_of(ipam.get_or_remap_networks("c2", cidr("10.1.0.0/16"), cidr("10.2.0.0/16")),
           ErrorCode::Internal);
  error_of(ipam.map_endpoint_ip("c2", fed::test::ip("10.1.0.5")), ErrorCode::Internal);
}

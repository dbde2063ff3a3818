// MapEndpointIP / UnmapEndpointIP: spec 002 §2.5 and scenario S5.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/manager/ipam/ipam.hpp"
#include "shared/net/net_types.hpp"
#include "tests/unit/agent/manager/ipam/ipam_test_util.hpp"

using fed::ErrorCode;
using fed::fabric::ipam::EndpointPath;
using fed::fabric::ipam::Ipam;
using fed::fabric::ipam::LocalRemaps;
using fed::net::Ipv4;
using fed::test::cidr;
using fed::test::error_of;
using fed::test::ip;

namespace {

// Hub B of S5: PodCIDR 10.200.0.0/24 (ExternalCIDR 10.0.0.0/24), peers A and D, and C whose
// pods B uses as 10.1.0.0/24. A sees B's networks as they are; D remapped B's PodCIDR to
// 10.60.0.0/24 and B's ExternalCIDR to 10.50.0.0/24.
void make_hub(Ipam& b) {
  fed::test::install(b, "10.200.0.0/24", "10.96.0.0/12");
  REQUIRE(b.local_networks()->external_cidr == cidr("10.0.0.0/24"));
  fed::test::peer(b, "a", "10.2.0.0/24", "10.3.0.0/24");
  fed::test::peer(b, "c", "10.1.0.0/24", "10.4.0.0/24");
  fed::test::peer(b, "d", "10.5.0.0/24", "10.6.0.0/24",
                  {cidr("10.60.0.0/24"), cidr("10.50.0.0/24")});
}

}  // namespace

TEST_CASE("S5: the mapping lifecycle of an endpoint of a third cluster") {
  Ipam b;
  make_hub(b);
  const Ipv4 c1 = ip("10.1.0.5");

  auto first = b.map_endpoint_ip("a", c1);  // allocates X, NatMapping(A) = {X': 10.1.0.5}
  REQUIRE(first.has_value());
  CHECK(first->path == EndpointPath::External);
  CHECK(first->ip == ip("10.0.0.1"));
  CHECK(first->nat_changed);
  CHECK(b.nat_mapping("a")->mappings == std::map<Ipv4, Ipv4>{{ip("10.0.0.1"), c1}});
  CHECK(b.nat_mapping("a")->external_cidr == cidr("10.0.0.0/24"));

  auto again = b.map_endpoint_ip("a", c1);  // same IP, no new NAT entry
  REQUIRE(again.has_value());
  CHECK(again->ip == first->ip);
  CHECK_FALSE(again->nat_changed);

  auto for_d = b.map_endpoint_ip("d", c1);  // same X, in D's view of our ExternalCIDR
  REQUIRE(for_d.has_value());
  CHECK(for_d->ip == ip("10.50.0.1"));
  CHECK(for_d->ip == fed::net::map_ip_to_network(first->ip, cidr("10.50.0.0/24")));
  CHECK(b.nat_mapping("d")->mappings == std::map<Ipv4, Ipv4>{{ip("10.50.0.1"), c1}});
  CHECK(b.nat_mapping("d")->external_cidr == cidr("10.50.0.0/24"));
  CHECK(b.snapshot().endpoints.at(c1).clusters == std::vector<std::string>{"a", "d"});

  auto drop_a = b.unmap_endpoint_ip("a", c1);  // A's entry goes, X stays for D
  REQUIRE(drop_a.has_value());
  CHECK(drop_a->nat_changed);
  CHECK_FALSE(drop_a->released);
  CHECK(b.nat_mapping("a")->mappings.empty());
  CHECK(b.snapshot().endpoints.at(c1).external_ip == ip("10.0.0.1"));

  auto drop_d = b.unmap_endpoint_ip("d", c1);  // the last user: X is freed
  REQUIRE(drop_d.has_value());
  CHECK(drop_d->released);
  CHECK(b.snapshot().endpoints.empty());

  auto noop = b.unmap_endpoint_ip("d", c1);  // again: nothing to do
  REQUIRE(noop.has_value());
  CHECK_FALSE(noop->nat_changed);
  CHECK_FALSE(noop->released);

  // A freed address is handed out again, first-free.
  CHECK(b.map_endpoint_ip("a", ip("10.1.0.9"))->ip == ip("10.0.0.1"));
}

TEST_CASE("S5: endpoints of our own PodCIDR map 1:1 and need no data plane") {
  Ipam b;
  make_hub(b);
  auto for_a = b.map_endpoint_ip("a", ip("10.200.0.7"));
  REQUIRE(for_a.has_value());
  CHECK(for_a->path == EndpointPath::LocalPod);
  CHECK(for_a->ip == ip("10.200.0.7"));
  CHECK_FALSE(for_a->nat_changed);
  auto for_d = b.map_endpoint_ip("d", "10.200.0.7");  // D remapped our PodCIDR
  REQUIRE(for_d.has_value());
  CHECK(for_d->ip == ip("10.60.0.7"));
  CHECK(b.snapshot().endpoints.empty());        // no allocation
  CHECK(b.nat_mapping("d")->mappings.empty());  // no rule
  auto unmap = b.unmap_endpoint_ip("d", "10.200.0.7");
  REQUIRE(unmap.has_value());
  CHECK_FALSE(unmap->nat_changed);
}

TEST_CASE("S5: a cluster without peering data is an error, not a guess") {
  Ipam b;
  make_hub(b);
  CHECK(error_of(b.map_endpoint_ip("x", ip("10.1.0.5")), ErrorCode::NotFound) ==
        "cluster x has no peering networks; peer it (kubectl fed join) before reflecting "
        "endpoints to it");
  REQUIRE(b.get_or_remap_networks("half", cidr("10.7.0.0/24"), cidr("10.8.0.0/24")));
  CHECK(error_of(b.map_endpoint_ip("half", ip("10.1.0.5")), ErrorCode::Unavailable) ==
        "networking with cluster half is not configured yet: waiting for the peer to report how "
        "it sees our networks");
  REQUIRE(b.set_local_remaps("other", {}));
  CHECK(error_of(b.nat_mapping("other"), ErrorCode::Unavailable).find("have not been processed") !=
        std::string::npos);
  CHECK(error_of(b.map_endpoint_ip("a", "10.1.0"), ErrorCode::Invalid) ==
        "endpoint IP: \"10.1.0\" is not an IPv4 address (expected a.b.c.d, each 0 to 255 without leading zeros)");
  CHECK(
      error_of(b.map_endpoint_ip("", ip("10.1.0.5")), ErrorCode::Invalid).find("not a DNS label") !=
      std::string::npos);
  CHECK(error_of(b.map_endpoint_ip("a", ip("10.0.0.3")), ErrorCode::Invalid) ==
        "endpoint 10.0.0.3 is inside the local ExternalCIDR 10.0.0.0/24; reflect the endpoint it "
        "stands for, not its ExternalCIDR address");
  CHECK(b.snapshot().endpoints.empty());
}

TEST_CASE("removing a peer drops its references and frees addresses nobody else uses") {
  Ipam b;
  make_hub(b);
  REQUIRE(b.map_endpoint_ip("a", ip("10.1.0.5")));
  REQUIRE(b.map_endpoint_ip("d", ip("10.1.0.5")));
  REQUIRE(b.map_endpoint_ip("a", ip("10.1.0.6")));
  REQUIRE(*b.remove_cluster("a"));
  auto state = b.snapshot();
  REQUIRE(state.endpoints.size() == 1);
  CHECK(state.endpoints.at(ip("10.1.0.5")).clusters == std::vector<std::string>{"d"});
  CHECK(b.map_endpoint_ip("d", ip("10.1.0.7"))->ip == ip("10.50.0.2"));  // 10.0.0.2 was freed
}

TEST_CASE("a full ExternalCIDR is Unavailable until an endpoint is unmapped") {
  Ipam b;
  fed::test::install(b, "10.200.0.0/30", "10.96.0.0/12");  // ExternalCIDR /30: two addresses
  fed::test::peer(b, "a", "10.2.0.0/30", "10.3.0.0/30");
  REQUIRE(b.map_endpoint_ip("a", ip("10.1.0.1")));
  REQUIRE(b.map_endpoint_ip("a", ip("10.1.0.2")));
  auto msg = error_of(b.map_endpoint_ip("a", ip("10.1.0.3")), ErrorCode::Unavailable);
  CHECK(msg ==
        "the ExternalCIDR 10.0.0.0/30 has no free address (2 endpoints hold one); unmap unused "
        "endpoints, or install with a larger PodCIDR, which sizes the ExternalCIDR");
  CHECK(b.map_endpoint_ip("a", ip("10.1.0.1"))->ip == ip("10.0.0.1"));  // existing ones still map
  REQUIRE(b.unmap_endpoint_ip("a", ip("10.1.0.1"))->released);
  CHECK(b.map_endpoint_ip("a", ip("10.1.0.3"))->ip == ip("10.0.0.1"));
}

TEST_CASE("10 000 endpoints get distinct addresses, one NAT entry each, all freed at the end") {
  Ipam b;
  fed::test::install(b, "10.200.0.0/16", "10.96.0.0/12");  // ExternalCIDR 10.0.0.0/16
  fed::test::peer(b, "a", "10.2.0.0/16", "10.3.0.0/16", {std::nullopt, cidr("10.50.0.0/16")});
  constexpr std::uint32_t kCount = 10000;
  const std::uint32_t base = ip("172.20.0.0").value;
  std::set<Ipv4> seen;
  for (std::uint32_t i = 0; i < kCount; ++i) {
    auto m = b.map_endpoint_ip("a", Ipv4{base + i});
    REQUIRE(m.has_value());
    CHECK(cidr("10.50.0.0/16").contains(m->ip));
    seen.insert(m->ip);
  }
  CHECK(seen.size() == kCount);
  auto nat = b.nat_mapping("a");
  REQUIRE(nat.has_value());
  CHECK(nat->mappings.size() == kCount);
  CHECK(nat->mappings.at(ip("10.50.0.1")) == Ipv4{base});
  for (std::uint32_t i = 0; i < kCount; ++i) {
    REQUIRE(b.unmap_endpoint_ip("a", Ipv4{base + i})->released);
  }
  CHECK(b.snapshot().endpoints.empty());
  CHECK(b.map_endpoint_ip("a", Ipv4{base})->ip == ip("10.50.0.1"));
}

TEST_CASE("concurrent workers map and unmap without losing or sharing an address") {
  Ipam b;
  fed::test::install(b, "10.200.0.0/16", "10.96.0.0/12");
  constexpr int kWorkers = 5;
  constexpr std::uint32_t kPerWorker = 2000;
  for (int w = 0; w < kWorkers; ++w) {
    const std::string id = "p" + std::to_string(w);
    fed::test::peer(b, id.c_str(), ("10." + std::to_string(100 + w) + ".0.0/16").c_str(),
                    ("10." + std::to_string(110 + w) + ".0.0/16").c_str());
  }
  const std::uint32_t base = ip("172.20.0.0").value;
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&b, w, base] {
      const std::string id = "p" + std::to_string(w);
      // Every worker maps the same endpoints (shared addresses) and unmaps its odd ones.
      for (std::uint32_t i = 0; i < kPerWorker; ++i) (void)b.map_endpoint_ip(id, Ipv4{base + i});
      for (std::uint32_t i = 1; i < kPerWorker; i += 2) {
        (void)b.unmap_endpoint_ip(id, Ipv4{base + i});
      }
    });
  }
  for (auto& t : workers) t.join();
  auto state = b.snapshot();
  CHECK(state.endpoints.size() == kPerWorker / 2);
  std::set<Ipv4> addresses;
  for (const auto& [endpoint, es] : state.endpoints) {
    CHECK((endpoint.value - base) % 2 == 0);
    CHECK(es.clusters.size() == kWorkers);
    addresses.insert(es.external_ip);
  }
  CHECK(addresses.size() == state.endpoints.size());
  for (int w = 0; w < kWorkers; ++w) {
    CHECK(b.nat_mapping("p" + std::to_string(w))->mappings.size() == kPerWorker / 2);
  }
}

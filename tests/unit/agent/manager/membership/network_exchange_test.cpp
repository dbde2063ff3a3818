#include <doctest/doctest.h>

#include "agent/manager/membership/network_exchange.hpp"
#include "agent/manager/membership/peering_builder.hpp"

namespace fed::federation {
namespace {

net::Cidr cidr(const char* s) {
  return net::Cidr::parse(s).value();
}

struct Cluster {
  std::string id;
  fabric::ipam::Ipam ipam;
  fabric::ipam::LocalNetworks local;

  Cluster(std::string name, const char* pod, const char* service) : id(std::move(name)) {
    local = ipam.install({cidr(pod), cidr(service), {}}).value();
  }
  ExchangeSide side() { return {ipam, id, local}; }
};

}  // namespace

TEST_CASE("distinct PodCIDRs: kept as announced on both sides") {
  Cluster host("c1", "10.241.0.0/16", "10.101.0.0/16");
  Cluster member("c2", "10.242.0.0/16", "10.102.0.0/16");
  auto r = exchange_networks(host.side(), member.side());
  REQUIRE(r);
  CHECK(r->a_view_of_b.remote_pod_cidr == cidr("10.242.0.0/16"));
  CHECK_FALSE(r->a_view_of_b.pod_remap());
  CHECK(r->b_view_of_a.remote_pod_cidr == cidr("10.241.0.0/16"));
  // The ExternalCIDRs were chosen apart from everything either side holds.
  CHECK_FALSE(host.local.external_cidr.overlaps(member.local.pod_cidr));
  auto host_state = host.ipam.cluster("c2").value();
  REQUIRE(host_state.local);
  CHECK_FALSE(host_state.local->pod_cidr);  // c2 sees our PodCIDR unchanged
}

TEST_CASE("the same PodCIDR: each side remaps the other and learns the other's remap") {
  Cluster host("c1", "10.244.0.0/16", "10.101.0.0/16");
  Cluster member("c2", "10.244.0.0/16", "10.102.0.0/16");
  auto r = exchange_networks(host.side(), member.side());
  REQUIRE(r);
  const auto host_remap = r->a_view_of_b.pod_remap();
  const auto member_remap = r->b_view_of_a.pod_remap();
  REQUIRE(host_remap);
  REQUIRE(member_remap);
  CHECK(host_remap->length == 16);
  CHECK_FALSE(host_remap->overlaps(host.local.pod_cidr));
  CHECK_FALSE(member_remap->overlaps(member.local.pod_cidr));
  // Each side knows how the other sees it: the basis of the NETMAP rules on its gateway.
  CHECK(host.ipam.cluster("c2").value().local->pod_cidr == member_remap);
  CHECK(member.ipam.cluster("c1").value().local->pod_cidr == host_remap);

  SUBCASE("running it again changes nothing (a restarted manager, a second join)") {
    const auto before_host = host.ipam.snapshot();
    const auto before_member = member.ipam.snapshot();
    auto again = exchange_networks(host.side(), member.side());
    REQUIRE(again);
    CHECK(host.ipam.snapshot() == before_host);
    CHECK(member.ipam.snapshot() == before_member);
  }
  SUBCASE("the Peering objects carry the announced networks and the remapped view") {
    PeeringSide side{"c1",         "c2",         host.local,     host.ipam.cluster("c2").value(),
                     std::nullopt, std::nullopt, "169.254.64.1", "169.254.64.2"};
    CHECK(networks_complete(side));
    const auto object = peering_object(side);
    CHECK(object["metadata"]["name"] == "c2");
    CHECK(object["metadata"]["labels"]["kubectl-fed.io/cluster-id"] == "c2");
    CHECK(object["spec"]["peerPodCIDR"] == "10.244.0.0/16");
    CHECK(object["spec"]["peerTunnelAddress"] == "169.254.64.2");
    CHECK_FALSE(object["spec"].contains("publicKey"));  // the peer gateway is not up yet
    const auto status = peering_network_status(side);
    CHECK(status.remote_pod_cidr == host_remap->str());
    CHECK(status.local_remapped_pod_cidr == member_remap->str());
  }
}

TEST_CASE("a hub with two spokes of the same PodCIDR gives them different networks") {
  Cluster hub("c1", "10.244.0.0/16", "10.101.0.0/16");
  Cluster a("c2", "10.244.0.0/16", "10.102.0.0/16");
  Cluster b("c3", "10.244.0.0/16", "10.103.0.0/16");
  auto ra = exchange_networks(hub.side(), a.side());
  auto rb = exchange_networks(hub.side(), b.side());
  REQUIRE(ra);
  REQUIRE(rb);
  CHECK_FALSE(ra->a_view_of_b.remote_pod_cidr.overlaps(rb->a_view_of_b.remote_pod_cidr));
  CHECK_FALSE(ra->a_view_of_b.remote_external_cidr.overlaps(rb->a_view_of_b.remote_external_cidr));
}

}  // namespace fed::federation

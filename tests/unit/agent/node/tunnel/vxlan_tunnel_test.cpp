// The unencrypted gateway tunnel's device and entries, and its plan against a kernel double.
#include "agent/node/tunnel/vxlan_tunnel.hpp"

#include <doctest/doctest.h>

#include "tests/unit/agent/node/fabric/fake_kernel.hpp"

using namespace fed::tunnel;
using fed::net::Ipv4;

namespace {

Ipv4 ip(const char* s) {
  return *Ipv4::parse(s);
}

}  // namespace

TEST_CASE("the VXLAN tunnel: our tunnel address, one FDB entry and neighbour per peer gateway") {
  VxlanTunnelOptions options;
  const std::vector<VxlanTunnelPeer> peers{{"c2", ip("172.31.0.2"), ip("169.254.64.2")},
                                           {"c3", ip("172.31.0.3"), ip("169.254.64.3")}};
  auto d = desired_vxlan_tunnel(options, ip("169.254.64.1"), 18, peers);
  REQUIRE(d.device);
  CHECK(d.device->name == "fed.vxtun");
  CHECK(d.device->vni == 18961);
  CHECK(d.device->port == 4789);
  CHECK(d.device->local == Ipv4{});  // left to routing: the gateway address may be a NAT's
  CHECK(d.device->address.str() == "169.254.64.1");
  CHECK(d.device->prefix_length == 18);
  CHECK(d.device->mac.str() == "02:fe:a9:fe:40:01");
  REQUIRE(d.fdb.size() == 2);
  CHECK(d.fdb[1].remote.str() == "172.31.0.3");
  CHECK(d.fdb[1].mac.str() == "02:fe:a9:fe:40:03");  // what c3 gives its own device
  CHECK(d.neighbours[1].ip.str() == "169.254.64.3");
  CHECK(d.neighbours[1].mac == d.fdb[1].mac);
  CHECK_FALSE(desired_vxlan_tunnel(options, ip("169.254.64.1"), 18, {}).device);
}

TEST_CASE("the VXLAN tunnel converges in one pass, then writes nothing, and goes with its peers") {
  fed::fabric::testing::FakeLinkManager links;
  VxlanTunnelOptions options;
  auto want = desired_vxlan_tunnel(options, ip("169.254.64.1"), 18,
                                   {{"c2", ip("172.31.0.2"), ip("169.254.64.2")}});
  REQUIRE(converge_vxlan_tunnel(links, options, want));
  REQUIRE(links.vxlan_);
  CHECK(links.vxlan_->fdb.size() == 1);
  const int writes = links.writes;
  REQUIRE(converge_vxlan_tunnel(links, options, want));
  CHECK(links.writes == writes);
  REQUIRE(converge_vxlan_tunnel(links, options, {}));
  CHECK_FALSE(links.vxlan_);
}
